import { Fragment } from 'react';

/**
 * A domain, address or URL that wraps after its dots, @ and slashes (between labels) before it wraps
 * anywhere else: `password-resets.<wbr>accounts.<wbr>example.com`. Its text is unchanged.
 */
export function Wrappable({ text }: { text: string }) {
  return (
    <>
      {text.split(/(?<=[.@/])/).map((part, i) => (
        <Fragment key={i}>
          {i > 0 && <wbr />}
          {part}
        </Fragment>
      ))}
    </>
  );
}
