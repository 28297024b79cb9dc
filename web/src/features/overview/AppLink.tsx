import type { ReactNode } from 'react';
import { navigate } from '../../lib/router';

/** A link into the app that moves with the History API, and still opens in a new tab when asked to. */
export function AppLink({ href, className, children }: { href: string; className?: string; children: ReactNode }) {
  return (
    <a
      className={className}
      href={href}
      onClick={(e) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(href);
      }}
    >
      {children}
    </a>
  );
}
