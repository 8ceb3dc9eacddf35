// A streaming scanner for the XML of Apple Health's export.xml: not a general XML parser. It finds tags
// with native `indexOf` over decoded text (faster here than a byte loop or a SAX parser), reads attributes
// only of the elements the caller wants, and never interprets the DTD: the internal subset is skipped,
// entities are never expanded (only the five predefined ones and character references are decoded),
// nothing external is ever fetched. C0 control characters that strict parsers reject (real exports hold
// `\x0b`) are dropped from the values it hands out.

/**
 * The attributes of the tag being reported, read lazily from the scanned text: valid only during the
 * `open` call (the scanner reuses it), so a handler copies out what it keeps.
 */
export class XmlAttributes {
  /** True when an attribute name was malformed (a space in it): the element should be skipped. */
  malformed = false;
  private text = "";
  private count_ = 0;
  private readonly at = new Int32Array(4 * 64);

  /** The raw (not yet cleaned) value of attribute `name`, or undefined. */
  get(name: string): string | undefined {
    const s = this.text;
    const at = this.at;
    for (let i = 0; i < this.count_ * 4; i += 4) {
      const start = at[i] as number;
      if ((at[i + 1] as number) - start === name.length && s.startsWith(name, start)) {
        return s.slice(at[i + 2], at[i + 3]);
      }
    }
    return undefined;
  }

  /** Number of attributes read. */
  get count(): number {
    return this.count_;
  }

  /** Length of the name of attribute `i`. */
  nameLength(i: number): number {
    return (this.at[i * 4 + 1] as number) - (this.at[i * 4] as number);
  }

  /** True when attribute `i` is named `name`. */
  nameIs(i: number, name: string): boolean {
    return this.nameLength(i) === name.length && this.text.startsWith(name, this.at[i * 4]);
  }

  /** Raw value of attribute `i`. */
  valueAt(i: number): string {
    return this.text.slice(this.at[i * 4 + 2], this.at[i * 4 + 3]);
  }

  /** @internal Starts a new tag over `text`. */
  reset(text: string): void {
    this.text = text;
    this.count_ = 0;
    this.malformed = false;
  }

  /** @internal Adds the attribute whose name is `text[nameStart, nameEnd)` and value `[valueStart, valueEnd)`. */
  add(nameStart: number, nameEnd: number, valueStart: number, valueEnd: number): void {
    if (this.count_ * 4 >= this.at.length) return;
    const i = this.count_++ * 4;
    this.at[i] = nameStart;
    this.at[i + 1] = nameEnd;
    this.at[i + 2] = valueStart;
    this.at[i + 3] = valueEnd;
  }
}

/** What the scanner reports to its user. */
export type XmlHandler = {
  /** A start (or self-closing) tag of a wanted element; `attrs` is only valid during the call. */
  open(name: string, attrs: XmlAttributes, selfClosing: boolean, offset: number): void;
  /** An end tag of a wanted element (also called right after `open` for a self-closing one). */
  close(name: string, offset: number): void;
  /** The DOCTYPE declared entities or an external id: ignored, reported once. */
  doctype(info: { entities: number; external: boolean }): void;
};

/** Longest piece of markup (a tag, a comment, the DOCTYPE) kept while waiting for its end. */
export const MAX_MARKUP_CHARS = 1 << 20;

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding the control characters is the point
const CONTROL_OR_AMP = /[\u0000-\u0008\u000b\u000c\u000e-\u001f&]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding the control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g;
const ENTITY = /&(#x[0-9a-fA-F]+|#[0-9]+|lt|gt|amp|quot|apos);/g;
const PREDEFINED: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

/** Drops C0 control characters and decodes predefined entities and character references. */
export function cleanXmlValue(raw: string): string {
  if (!CONTROL_OR_AMP.test(raw)) return raw;
  return raw.replace(CONTROL, "").replace(ENTITY, (all, ref: string) => {
    if (ref[0] !== "#") return PREDEFINED[ref] ?? all;
    const code = ref[1] === "x" ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10);
    // A reference to a control character or past Unicode is dropped, like a raw control character.
    if (
      !Number.isFinite(code) ||
      code > 0x10ffff ||
      (code < 0x20 && code !== 9 && code !== 10 && code !== 13)
    ) {
      return "";
    }
    return String.fromCodePoint(code);
  });
}

/** Why the scanner stopped early. */
export type XmlScanError = { reason: "xml_malformed" | "unexpected_eof"; offset: number; detail: string };

/**
 * Feed it decoded text with `push`; it calls the handler for wanted elements and keeps only the
 * unfinished markup between calls. `finish` tells whether the document ended cleanly.
 */
export class XmlScanner {
  /** Set when the input cannot be scanned further (a markup piece longer than the cap). */
  error?: XmlScanError;
  private text = "";
  /** Chunks not scanned yet, held while `text` is long: see `push`. */
  private waiting: string[] = [];
  private waitingChars = 0;
  /** UTF-8 bytes of `text` and the waiting chunks. */
  private pendingBytes = 0;
  /** Characters consumed before `text[0]` (the offset reported: bytes for ASCII input). */
  private base = 0;
  private depth = 0;
  private sawRoot = false;

  /** Open elements (1: inside the root only). */
  get openElements(): number {
    return this.depth;
  }

  /** Text kept while waiting for its end (it starts the next scan): unfinished markup and what follows it. */
  get pendingText(): string {
    return this.text + this.waiting.join("");
  }

  /** UTF-8 length of {@link pendingText}, kept as it changes (cheap to ask after every chunk). */
  get pendingUtf8Length(): number {
    return this.pendingBytes;
  }

  /**
   * Continues a document from the middle: the input starts right inside the root element (at a
   * checkpoint taken when only the root was open), so no root start tag will come.
   */
  resumeInsideRoot(): void {
    this.depth = 1;
    this.sawRoot = true;
  }

  /** Wanted names by length: a tag name is matched in place, without slicing it out. */
  private readonly wanted: (string[] | undefined)[] = [];
  private readonly handler: XmlHandler;
  private readonly attrs = new XmlAttributes();

  /** `wanted`: element names whose tags are reported (with attributes) to `handler`. */
  constructor(wanted: ReadonlySet<string>, handler: XmlHandler) {
    for (const name of wanted) {
      const same = this.wanted[name.length] ?? [];
      same.push(name);
      this.wanted[name.length] = same;
    }
    this.handler = handler;
  }

  /**
   * Scans `chunk` (appended to any unfinished markup). Unfinished markup is scanned again from its start
   * when more text comes, so while it is long, small chunks wait until as much new text has come as it
   * holds: a long piece (a DTD without its end) fed a byte at a time costs linear time, not quadratic.
   */
  push(chunk: string): void {
    if (this.error) return;
    if (this.text.length > 0 && this.waitingChars + chunk.length < this.text.length) {
      this.waiting.push(chunk);
      this.waitingChars += chunk.length;
      this.pendingBytes += utf8Length(chunk);
      this.checkCap();
      return;
    }
    this.scanPending(chunk);
  }

  private scanPending(chunk: string): void {
    const waiting = this.waiting.length > 0 ? this.waiting.join("") : "";
    this.waiting = [];
    this.waitingChars = 0;
    const s = this.text.length > 0 || waiting.length > 0 ? this.text + waiting + chunk : chunk;
    const i = this.scan(s);
    this.base += i;
    this.text = i >= s.length ? "" : s.slice(i);
    this.pendingBytes = utf8Length(this.text);
    this.checkCap();
  }

  private checkCap(): void {
    if (this.text.length + this.waitingChars > MAX_MARKUP_CHARS) {
      this.error = { reason: "xml_malformed", offset: this.base, detail: "markup longer than the cap" };
    }
  }

  /** Ends the input; returns the problem if the document stopped inside markup or an open element. */
  finish(): XmlScanError | undefined {
    if (!this.error && this.waitingChars > 0) this.scanPending("");
    if (this.error) return this.error;
    if (this.text.trim().length > 0) {
      return { reason: "unexpected_eof", offset: this.base, detail: "ends inside markup" };
    }
    if (!this.sawRoot) return { reason: "xml_malformed", offset: this.base, detail: "no root element" };
    if (this.depth > 0)
      return { reason: "unexpected_eof", offset: this.base, detail: `${this.depth} open elements` };
    return undefined;
  }

  /** Scans complete markup in `s`; returns the index of the first unconsumed character. */
  private scan(s: string): number {
    let i = 0;
    const n = s.length;
    for (;;) {
      const lt = s.indexOf("<", i);
      if (lt < 0 || lt + 1 >= n) return lt < 0 ? n : lt;
      const c = s.charCodeAt(lt + 1);
      let next: number;
      if (c === 47) next = this.endTag(s, lt);
      else if (c === 33) next = this.declaration(s, lt);
      else if (c === 63) next = end(s, "?>", lt + 2);
      else next = this.startTag(s, lt);
      if (next < 0) return lt;
      i = next;
    }
  }

  private endTag(s: string, lt: number): number {
    const gt = s.indexOf(">", lt + 2);
    if (gt < 0) return -1;
    let from = lt + 2;
    let to = gt;
    while (from < to && s.charCodeAt(from) <= 32) from++;
    while (to > from && s.charCodeAt(to - 1) <= 32) to--;
    this.depth = Math.max(0, this.depth - 1);
    const name = this.wantedName(s, from, to);
    if (name !== undefined) this.handler.close(name, this.base + lt);
    return gt + 1;
  }

  private declaration(s: string, lt: number): number {
    if (s.startsWith("<!--", lt)) return end(s, "-->", lt + 4);
    if (s.startsWith("<![CDATA[", lt)) return end(s, "]]>", lt + 9);
    if (s.length - lt < 9) return -1;
    if (!s.startsWith("<!DOCTYPE", lt)) return end(s, ">", lt + 2);
    const gt = s.indexOf(">", lt);
    const bracket = s.indexOf("[", lt);
    if (gt < 0 && bracket < 0) return -1;
    const hasSubset = bracket >= 0 && (gt < 0 || bracket < gt);
    const head = s.slice(lt, hasSubset ? bracket : gt);
    let stop = gt + 1;
    let entities = 0;
    if (hasSubset) {
      const subset = skipSubset(s, bracket + 1);
      if (!subset) return -1;
      stop = subset.stop;
      entities = subset.entities;
    }
    const external = /\b(SYSTEM|PUBLIC)\b/.test(head);
    if (entities > 0 || external) this.handler.doctype({ entities, external });
    return stop;
  }

  /** The wanted name written at `s[from, to)`, or undefined. */
  private wantedName(s: string, from: number, to: number): string | undefined {
    const candidates = this.wanted[to - from];
    if (!candidates) return undefined;
    for (const name of candidates) if (s.startsWith(name, from)) return name;
    return undefined;
  }

  private startTag(s: string, lt: number): number {
    const n = s.length;
    let j = lt + 1;
    for (; j < n; j++) {
      const c = s.charCodeAt(j);
      if (c <= 32 || c === 47 || c === 62) break;
    }
    if (j >= n) return -1;
    const name = this.wantedName(s, lt + 1, j);
    const isWanted = name !== undefined;
    const attrs = this.attrs;
    if (isWanted) attrs.reset(s);
    let k = j;
    for (;;) {
      while (k < n && s.charCodeAt(k) <= 32) k++;
      if (k >= n) return -1;
      const c = s.charCodeAt(k);
      if (c === 62 || c === 47) {
        const selfClosing = c === 47;
        if (selfClosing && k + 1 >= n) return -1;
        if (selfClosing && s.charCodeAt(k + 1) !== 62) {
          this.error = {
            reason: "xml_malformed",
            offset: this.base + k,
            detail: `stray / in <${s.slice(lt + 1, j)}>`,
          };
          return n;
        }
        this.sawRoot = true;
        if (!selfClosing) this.depth++;
        if (name !== undefined) {
          this.handler.open(name, attrs, selfClosing, this.base + lt);
          if (selfClosing) this.handler.close(name, this.base + lt);
        }
        return k + (selfClosing ? 2 : 1);
      }
      const eq = s.indexOf("=", k);
      if (eq < 0) return -1;
      let q = eq + 1;
      while (q < n && s.charCodeAt(q) <= 32) q++;
      if (q >= n) return -1;
      const quote = s.charCodeAt(q);
      if (quote !== 34 && quote !== 39) {
        this.error = {
          reason: "xml_malformed",
          offset: this.base + q,
          detail: `unquoted attribute in <${s.slice(lt + 1, j)}>`,
        };
        return n;
      }
      const close = s.indexOf(quote === 34 ? '"' : "'", q + 1);
      if (close < 0) return -1;
      if (isWanted) {
        let nameEnd = eq;
        while (nameEnd > k && s.charCodeAt(nameEnd - 1) <= 32) nameEnd--;
        // A name with a space or markup in it (seen in hand-edited and broken exports): the element is
        // reported as malformed and skipped by the caller; scanning goes on after it.
        if (!isName(s, k, nameEnd)) attrs.malformed = true;
        else attrs.add(k, nameEnd, q + 1, close);
      }
      k = close + 1;
    }
  }
}

/**
 * Steps over a DTD internal subset starting at `from` (after `[`) without interpreting it: comments,
 * processing instructions and quoted literals may hold `]>` and are skipped whole. Returns the index
 * after the closing `]>` and how many entity declarations it saw, or undefined if it has not ended yet.
 */
function skipSubset(s: string, from: number): { stop: number; entities: number } | undefined {
  let entities = 0;
  let i = from;
  const n = s.length;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c === 34 || c === 39) {
      const close = s.indexOf(c === 34 ? '"' : "'", i + 1);
      if (close < 0) return undefined;
      i = close + 1;
    } else if (c === 60 && s.startsWith("<!--", i)) {
      const close = s.indexOf("-->", i + 4);
      if (close < 0) return undefined;
      i = close + 3;
    } else if (c === 60 && s.startsWith("<?", i)) {
      const close = s.indexOf("?>", i + 2);
      if (close < 0) return undefined;
      i = close + 2;
    } else if (c === 93) {
      let j = i + 1;
      while (j < n && s.charCodeAt(j) <= 32) j++;
      if (j >= n) return undefined;
      if (s.charCodeAt(j) === 62) return { stop: j + 1, entities };
      i = j;
    } else {
      if (c === 60 && s.startsWith("<!ENTITY", i)) entities++;
      i++;
    }
  }
  return undefined;
}

function isName(s: string, from: number, to: number): boolean {
  if (to <= from) return false;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c <= 32 || c === 60 || c === 62 || c === 34 || c === 39 || c === 47) return false;
  }
  return true;
}

function end(s: string, terminator: string, from: number): number {
  const at = s.indexOf(terminator, from);
  return at < 0 ? -1 : at + terminator.length;
}

/** UTF-8 length of `s` in bytes (a surrogate pair counts 4, split between its halves as 4 and 0). */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c < 0xdc00 ? 4 : c >= 0xdc00 && c < 0xe000 ? 0 : 3;
  }
  return n;
}
