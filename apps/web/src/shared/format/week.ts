/** First day of the week as in `Date#getDay()`: Monday (1) in Russian, Sunday (0) otherwise (spec §9). */
export function getWeekStartDay(language: string): 0 | 1 {
  return language.toLowerCase().startsWith("ru") ? 1 : 0;
}
