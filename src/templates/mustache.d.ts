// The one function of mustache 4.2.0 Mailroom uses (the package ships no types; @types/mustache would be a
// second dependency for four lines). Its renderer is not used: template-language.ts renders the tokens itself.
declare module 'mustache' {
  /** [type, value, start, end, children?, ...]: `type` is text, name, &, {, #, ^, /, !, =, >. */
  export type MustacheToken = [string, string, number, number, MustacheToken[]?, number?, boolean?];
  const Mustache: {
    parse(template: string, tags?: [string, string]): MustacheToken[];
    templateCache: { set(key: string, value: unknown): void; get(key: string): unknown; clear(): void } | undefined;
  };
  export default Mustache;
}
