// Deliberately loose: the server's EmailSchema decides; this only catches obvious typos before sending.
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function isValidEmail(value: string): boolean {
  return value.length <= 254 && EMAIL_PATTERN.test(value.trim());
}

export const MIN_PASSWORD_CHARS = 8;

export type PasswordStrength = "too_short" | "weak" | "fair" | "strong";

/** A hint only: length counts most, then variety of character kinds. */
export function ratePassword(password: string): PasswordStrength {
  if (password.length < MIN_PASSWORD_CHARS) return "too_short";
  const kinds = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((re) => re.test(password)).length;
  if (password.length >= 14 || (password.length >= 10 && kinds >= 3)) return "strong";
  if (password.length >= 10 || kinds >= 3) return "fair";
  return "weak";
}
