/**
 * Two-word phrases read as one word, on both sides (tool texts and needs), before stemming:
 * "logged in" and "login" then meet, and "phone number" is not a phone call.
 */
export const PHRASES: ReadonlyMap<string, string> = new Map([
  ['log in', 'login'],
  ['logged in', 'login'],
  ['sign in', 'login'],
  ['signed in', 'login'],
  ['text message', 'sms'],
  ['phone number', 'phonenumber'],
  ['phone numbers', 'phonenumber'],
  ['pull request', 'pullrequest'],
  ['pull requests', 'pullrequest'],
]);
