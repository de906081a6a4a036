/**
 * The XSS corpus for the card: classic vectors (event handlers, script and SVG, javascript: URLs,
 * srcdoc, template and markup-parser tricks) each also behind the breakouts a renderer that pasted text
 * into HTML or attributes would fall for. Every vector that ran would call `__xssHit()`, which counts on
 * `window.__xss`. Plain data; the test decides where each string goes.
 */
const VECTORS = [
  '<script>__xssHit()</script>',
  '<img src=x onerror=__xssHit()>',
  '<img src="x" onerror="__xssHit()">',
  '<svg onload=__xssHit()>',
  '<svg><script>__xssHit()</script></svg>',
  '<body onload=__xssHit()>',
  '<iframe srcdoc="<script>parent.__xssHit()</script>"></iframe>',
  '<iframe src="javascript:parent.__xssHit()"></iframe>',
  '<a href="javascript:__xssHit()" id=xsslink>click</a>',
  '<details open ontoggle=__xssHit()>',
  '<input autofocus onfocus=__xssHit()>',
  '<video><source onerror=__xssHit()></video>',
  '<audio src=x onerror=__xssHit()>',
  '<object data="javascript:__xssHit()"></object>',
  '<embed src="javascript:__xssHit()">',
  '<math><mtext></mtext><mglyph><style><img src=x onerror=__xssHit()></style></mglyph></math>',
  '<style>@import "javascript:__xssHit()";</style>',
  '<link rel=stylesheet href="javascript:__xssHit()">',
  '<marquee onstart=__xssHit()>x</marquee>',
  '<form><button formaction="javascript:__xssHit()">x</button></form>',
  '<isindex action="javascript:__xssHit()" type=image>',
  '<noscript><p title="</noscript><img src=x onerror=__xssHit()>">',
  '<template><img src=x onerror=__xssHit()></template>',
  '<img src=x:alert(1) onerror=eval(atob("X194c3NIaXQoKQ=="))>',
  '<svg><animate onbegin=__xssHit() attributeName=x dur=1s>',
  '<img src=x onerror=&#95;&#95;xssHit()>',
  '<IMG SRC=x OnErRoR=__xssHit()>',
  '<img/src=x/onerror=__xssHit()>',
  '<scr<script>ipt>__xssHit()</scr</script>ipt>',
  '<!--><img src=x onerror=__xssHit()>-->',
  '<![CDATA[<img src=x onerror=__xssHit()>]]>',
  '<?xml version="1.0"?><img src=x onerror=__xssHit()>',
  'javascript:__xssHit()',
  '" onmouseover="__xssHit()" x="',
  "' onfocus='__xssHit()' autofocus='",
  '${__xssHit()}',
  '{{constructor.constructor("__xssHit()")()}}',
  '<!--?lit$1234$--><img src=x onerror=__xssHit()>',
  'lit$123$<img src=x onerror=__xssHit()>',
  '\\u003cimg src=x onerror=__xssHit()\\u003e',
  '&lt;img src=x onerror=__xssHit()&gt;',
  '<img src=x onerror=__xssHit() \u0000>',
  '<img src=x\u000bonerror=__xssHit()>',
  '<div style="background:url(javascript:__xssHit())">',
  '<base href="javascript:__xssHit()//">',
  '<meta http-equiv="set-cookie" content="xss=1"><img src=x onerror=__xssHit()>',
  '<select autofocus onfocus=__xssHit()></select>',
  '<textarea autofocus onfocus=__xssHit()></textarea>',
  '<keygen autofocus onfocus=__xssHit()>',
  '<frameset onload=__xssHit()>',
];

/** Contexts a string could be pasted into by a careless renderer, and the text that escapes each. */
const BREAKOUTS = ['', '"><', "'><", '</legend>', '</label></div>', '</textarea>', '</style>', '</script>', '-->', ']]>'];

/** Every vector alone, then the first vectors behind every breakout: well over 100 strings. */
export const XSS_PAYLOADS: readonly string[] = [
  ...VECTORS,
  ...BREAKOUTS.filter(Boolean).flatMap((b) => VECTORS.slice(0, 8).map((v) => `${b}${v}`)),
  // Long and mixed: markup inside text that also holds quotes, newlines and entities.
  `He said "hi" & left.\n<img src=x onerror=__xssHit()>\t&amp;&#x3C;script&#x3E;`,
  'a'.repeat(500) + '<script>__xssHit()</script>',
];
