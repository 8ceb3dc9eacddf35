/** The Tonus mark (a heart with a pulse line); decorative, the link around it carries the name. */
export function Logo({ size = 28 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 64 64" aria-hidden="true" focusable="false">
      <rect width="64" height="64" rx="14" fill="#0f766e" />
      <path
        d="M32 50 C14 38 9 29 12 21 C15 13 26 12 32 20 C38 12 49 13 52 21 C55 29 50 38 32 50 Z"
        fill="#fff"
      />
      <path
        d="M14 33 H24 L28 25 L33 41 L37 30 L40 33 H50"
        fill="none"
        stroke="#0f766e"
        strokeWidth="3.5"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
    </svg>
  );
}
