/**
 * The layout's import rules (docs/architecture.md, Layout), checked by
 * test/layout.test.ts: a capability folder of src/ is reached only through
 * its index.ts; plumbing imports no capability; no file imports itself back
 * through a circle, type-only imports included.
 */
const PLUMBING = ['http', 'db', 'cli', 'lib'];
const plumbing = `^src/(?:${PLUMBING.join('|')})/`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle: the files in it cannot be understood, loaded or tested one without the other.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'capability-through-its-index',
      severity: 'error',
      comment: "A capability imports another capability's index.ts, never the files inside it.",
      from: { path: '^src/([^/]+)/' },
      to: {
        path: '^src/[^/]+/.+',
        pathNot: ['^src/$1/', '^src/[^/]+/index\\.ts$', plumbing],
      },
    },
    {
      name: 'plumbing-imports-no-capability',
      severity: 'error',
      comment: 'Plumbing (http/, db/, cli/, lib/) sits below every capability and imports none.',
      from: { path: plumbing },
      to: { path: '^src/[^/]+/', pathNot: [plumbing] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|web|sdk|test|bench|scripts)/' },
    // Type-only imports count: a circle of types is still a circle for the reader.
    tsPreCompilationDeps: true,
    parser: 'swc',
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
