/**
 * Which plural form a count takes, by the language's own rules (Intl.PluralRules), so the
 * strings can be translated into languages with other forms than English's one and many.
 */
const rules = new Intl.PluralRules('en-US');

/** The count takes the singular ("one") form. */
export function isOne(n: number): boolean {
  return rules.select(n) === 'one';
}
