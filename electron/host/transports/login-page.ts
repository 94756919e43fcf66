/**
 * Why the browser is on the sign-in page: it opened the plain address without a session
 * (`no-session`), or a sign-in link whose one-time code was used or has expired (`link-used`).
 */
export type LoginReason = 'no-session' | 'link-used';

/** The page a browser without a session sees: how to sign in, and the token form. */
export function loginPageHtml(tokenFile: string, reason: LoginReason = 'no-session'): string {
  const file = tokenFile.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const why =
    reason === 'link-used'
      ? `<p>This sign-in link was already used or has expired. Paste the access token from
<code>${file}</code>, or restart Toolsmith and open the new link it prints.</p>`
      : `<p>To sign in, open the sign-in link Toolsmith printed when it started (it begins with
<code>/login?code=</code> and works once), or paste the access token from <code>${file}</code> below.</p>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Toolsmith — sign in</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:15px system-ui,sans-serif;max-width:34rem;margin:4rem auto;padding:0 1rem;color:#222}
input{width:100%;font:inherit;padding:.5rem;box-sizing:border-box}button{font:inherit;padding:.5rem 1rem;margin-top:.75rem}
code{background:#eee;padding:0 .25rem}#error{color:#b00020}</style></head>
<body><h1>Sign in to Toolsmith</h1>
${why}
<form id="login"><label for="token">Access token</label>
<input id="token" name="token" type="password" autocomplete="off" autofocus required>
<button type="submit">Sign in</button><p id="error" role="alert"></p></form>
<script src="/login.js"></script></body></html>`;
}

export const LOGIN_SCRIPT = `document.getElementById('login').addEventListener('submit', async (e) => {
  e.preventDefault();
  const token = document.getElementById('token').value.trim();
  const r = await fetch('/login', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token }) });
  if (r.ok) location.replace('/');
  else document.getElementById('error').textContent = 'That token is not right.';
});
`;
