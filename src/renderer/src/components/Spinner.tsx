/** A small spinning ring; the text next to it says what is happening, so it is hidden from assistive tech. */
export function Spinner({ size = 14 }: { size?: number }) {
  return <span className="spinner" style={{ width: size, height: size }} aria-hidden="true" />;
}
