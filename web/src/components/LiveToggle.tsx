/**
 * The visible switch of a live view. Its name stays "Live updates" and
 * aria-pressed says whether it is on (a toggle's name must not change); the
 * dot and the word after it say the same to the eye.
 */
export function LiveToggle({ on, onChange }: { on: boolean; onChange: (on: boolean) => void }) {
  return (
    <button type="button" className={`secondary live-toggle${on ? ' live-on' : ''}`} aria-pressed={on} onClick={() => onChange(!on)}>
      <span className="live-dot" aria-hidden="true" />
      <span>
        Live updates<span aria-hidden="true">{on ? ': on' : ': paused'}</span>
      </span>
    </button>
  );
}
