// A stand-in for a web browser in sign-in tests, given as $BROWSER: fetches the URL it is given and follows every
// redirect (the authorization server's auto-approving page sends it back to the redirect URI). Writes one JSON line
// per visit to $FETCH_BROWSER_LOG when that is set — before it fetches: the fetch ends the sign-in, and the CLI may
// exit (and a test count the visits) before a line written after it would be there.
import { appendFileSync } from 'node:fs';

const url = process.argv[2];
if (process.env.FETCH_BROWSER_LOG) appendFileSync(process.env.FETCH_BROWSER_LOG, `${JSON.stringify({ url })}\n`);
try {
  const res = await fetch(url, { redirect: 'follow' });
  await res.text();
} catch {
  // the CLI reports what failed: it never got the redirect
}
