// Untrusted text made safe for Markdown (CommonMark, and GitHub's renderer in a step summary or a pull-request
// comment): the one place that decides it. Every string a target or a file controls goes into an inline code span it
// cannot leave: inside one, nothing is a link, an image, emphasis, HTML, an autolink, an @mention, an issue or commit
// reference or an emoji, on GitHub as in CommonMark. Escaping characters one by one would not do: GitHub finds
// mentions, issue references and bare URLs in the rendered text, after backslash escapes are undone.
import { showControls } from './printable.js';

/** Where the span goes: a GFM table cell splits on `|` before it reads code spans, so there `|` is escaped too. */
export type MarkdownPlace = 'inline' | 'cell';

/** The longest run of backticks in the text. */
function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return longest;
}

/**
 * The text as one inline code span: control characters and line breaks shown escaped (a line break would let the
 * next line start a block: a heading, a list, HTML), fenced by a backtick run longer than any inside it (so none
 * closes it), padded with a space each side where it starts or ends with a backtick or with spaces at both ends
 * (CommonMark strips one space each side, so what is inside is shown whole). In a table cell every `|` is escaped (GFM undoes that escape inside the span too). Empty text reads
 * `(empty)`. `max`: at most that many characters are shown, then how many more there were (outside the span).
 */
export function markdownCode(
  text: string,
  options: { readonly place?: MarkdownPlace; readonly max?: number } = {},
): string {
  const shown = showControls(text);
  if (shown.length === 0) return '*(empty)*';
  const max = options.max ?? Number.MAX_SAFE_INTEGER;
  // Never cut a surrogate pair in two.
  let cut = shown.length > max ? shown.slice(0, max) : shown;
  if (cut.length < shown.length && /[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  const body = options.place === 'cell' ? cut.replace(/\|/g, '\\|') : cut;
  const fence = '`'.repeat(longestBacktickRun(body) + 1);
  const pad = /^`|`$|^ [^]* $/.test(body) ? ' ' : '';
  const more = shown.length - cut.length;
  return `${fence}${pad}${body}${pad}${fence}${more > 0 ? ` … (${more} more characters)` : ''}`;
}
