import { Fragment } from 'react';
import { byteSize, when, type Attachment } from './types';

interface AttachmentsProps {
  /** The message's path in the dashboard API. */
  path: string;
  attachments: Attachment[];
  /** When the retention pruner dropped the files (their list stays), or null while they are kept. */
  contentExpiredAt: string | null;
}

/** A MIME type or Content-ID, offered to wrap after its `/`, `;`, `.`, `@` and `-` before anywhere else. */
function Breakable({ text }: { text: string }) {
  return text.split(/(?<=[/;.@-])/).map((part, i) => (
    <Fragment key={i}>
      {i > 0 && <wbr />}
      {part}
    </Fragment>
  ));
}

/**
 * What the message carried besides its bodies, in the order sent: each file's
 * name, type, size and whether the HTML shows it inline, with a download while
 * the content is kept. The server answers a download as a file to save (never
 * a page of the dashboard's), so an HTML attachment cannot run here.
 */
export function Attachments({ path, attachments, contentExpiredAt }: AttachmentsProps) {
  if (attachments.length === 0) return null;
  return (
    <section className="card wide" aria-labelledby="attachments-title">
      <h2 id="attachments-title">Attachments</h2>
      {contentExpiredAt && (
        <p className="muted">
          The files are no longer kept: content expired on <time dateTime={contentExpiredAt}>{when(contentExpiredAt)}</time> (<code>CONTENT_RETENTION_DAYS</code>).
        </p>
      )}
      <table className="table attachments">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Type</th>
            <th scope="col">Size</th>
            <th scope="col">Shown as</th>
            {!contentExpiredAt && (
              <th scope="col">
                <span className="visually-hidden">Download</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {attachments.map((a, n) => (
            <tr key={n}>
              <td data-label="Name">
                <span className="url">{a.filename}</span>
              </td>
              <td data-label="Type">
                <code>
                  <Breakable text={a.content_type} />
                </code>
              </td>
              <td data-label="Size">{byteSize(a.size)}</td>
              <td data-label="Shown as">
                {a.content_id ? (
                  <span>
                    Inline{' '}
                    <code>
                      <Breakable text={`cid:${a.content_id}`} />
                    </code>
                  </span>
                ) : (
                  'Attachment'
                )}
              </td>
              {!contentExpiredAt && (
                <td className="actions">
                  <a className="button-link" href={`/dashboard/api${path}/attachments/${n}`} download={a.filename} aria-label={`Download ${a.filename}`}>
                    Download
                  </a>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
