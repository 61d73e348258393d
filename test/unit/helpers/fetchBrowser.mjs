// A stand-in for a web browser in sign-in tests, given as $BROWSER: fetches the URL it is given and follows every
// redirect (the authorization server's auto-approving page sends it back to the redirect URI). Writes one JSON line
// per visit to $FETCH_BROWSER_LOG when that is set.
import { appendFileSync } from 'node:fs';

const url = process.argv[2];
let status = 0;
let final = url;
try {
  const res = await fetch(url, { redirect: 'follow' });
  status = res.status;
  final = res.url;
  await res.text();
} catch (err) {
  status = -1;
  final = String(err);
}
if (process.env.FETCH_BROWSER_LOG) appendFileSync(process.env.FETCH_BROWSER_LOG, `${JSON.stringify({ url, status, final })}\n`);
