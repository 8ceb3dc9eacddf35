// A streaming scanner for the XML of Apple Health's export.xml: not a general XML parser. It scans the
// UTF-8 bytes themselves, without decoding them: decoding a whole export made text twice the file's size
// (one character outside Latin-1, like the ’ in "Anna’s Apple Watch", makes a string two bytes a
// character), and its garbage cost the import more than the scanning. Markup is ASCII, so a tag's
// structure reads the same in bytes, and an attribute value decoded on its own is the text a decoder of
// the whole file would have given there. It reads attributes only of the elements the caller wants and
// never interprets the DTD: the internal subset is skipped, entities are never expanded (only the five
// predefined ones and character references are decoded), nothing external is ever fetched. C0 control
// characters that strict parsers reject (real exports hold `\x0b`) are dropped from the values it hands out.

/** Decodes the bytes of a value as a decoder of the whole file would (a BOM there is a character). */
const valueDecoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** `b[start, end)` as text: invalid UTF-8 becomes U+FFFD, as in a decoded file. */
export function decodeBytes(b: Uint8Array, start: number, end: number): string {
  return valueDecoder.decode(b.subarray(start, end));
}

/** True when `b[start, end)` holds the ASCII text `s`. */
export function bytesEqual(b: Uint8Array, start: number, end: number, s: string): boolean {
  if (end - start !== s.length) return false;
  for (let i = 0; i < s.length; i++) if (b[start + i] !== s.charCodeAt(i)) return false;
  return true;
}

/**
 * The attributes of the tag being reported: where their names and values lie in `bytes`. Valid only
 * during the `open` call (the scanner reuses it and its bytes), so a handler copies out what it keeps.
 */
export class XmlAttributes {
  /** True when an attribute name was malformed (a space in it): the element should be skipped. */
  malformed = false;
  /** The scanned bytes the positions below point into. */
  bytes: Uint8Array = new Uint8Array(0);
  private count_ = 0;
  private readonly at = new Int32Array(4 * 64);

  /** Number of attributes read. */
  get count(): number {
    return this.count_;
  }

  /** Length of the name of attribute `i`. */
  nameLength(i: number): number {
    return (this.at[i * 4 + 1] as number) - (this.at[i * 4] as number);
  }

  /** True when attribute `i` is named `name` (ASCII). */
  nameIs(i: number, name: string): boolean {
    return bytesEqual(this.bytes, this.at[i * 4] as number, this.at[i * 4 + 1] as number, name);
  }

  /** Where the raw value of attribute `i` starts in `bytes`. */
  valueStart(i: number): number {
    return this.at[i * 4 + 2] as number;
  }

  /** Where the raw value of attribute `i` ends in `bytes`. */
  valueEnd(i: number): number {
    return this.at[i * 4 + 3] as number;
  }

  /** The raw (not yet cleaned) value of attribute `i`, decoded. */
  valueAt(i: number): string {
    return decodeBytes(this.bytes, this.valueStart(i), this.valueEnd(i));
  }

  /** The index of the first attribute named `name`, or -1. */
  find(name: string): number {
    for (let i = 0; i < this.count_; i++) if (this.nameIs(i, name)) return i;
    return -1;
  }

  /** The raw (not yet cleaned) value of the first attribute named `name`, or undefined. */
  get(name: string): string | undefined {
    const i = this.find(name);
    return i < 0 ? undefined : this.valueAt(i);
  }

  /** @internal Starts a new tag over `bytes`. */
  reset(bytes: Uint8Array): void {
    this.bytes = bytes;
    this.count_ = 0;
    this.malformed = false;
  }

  /** @internal Adds the attribute whose name is `bytes[nameStart, nameEnd)` and value `[valueStart, valueEnd)`. */
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

/** Longest piece of markup (a tag, a comment, the DOCTYPE) kept while waiting for its end, in bytes. */
export const MAX_MARKUP_BYTES = 1 << 20;

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

const LT = 60;
const GT = 62;
const SLASH = 47;
const BANG = 33;
const QUESTION = 63;
const EQUALS = 61;
const DQUOTE = 34;
const SQUOTE = 39;
const EMPTY = new Uint8Array(0);

/**
 * Feed it the file's bytes with `push`; it calls the handler for wanted elements and keeps only the
 * unfinished markup between calls. `finish` tells whether the document ended cleanly. Offsets are the
 * bytes consumed since the first `push`.
 */
export class XmlScanner {
  /** Set when the input cannot be scanned further (a markup piece longer than the cap). */
  error?: XmlScanError;
  /** Unfinished markup (and what follows it) at the start of `work`, `pendingN` bytes. */
  private work = new Uint8Array(1 << 16);
  private pendingN = 0;
  /** Chunks not scanned yet, held while the unfinished markup is long: see `push`. */
  private waiting: Uint8Array[] = [];
  private waitingN = 0;
  /** Bytes consumed before the pending ones. */
  private base = 0;
  private depth = 0;
  private sawRoot = false;

  /** Open elements (1: inside the root only). */
  get openElements(): number {
    return this.depth;
  }

  /** Bytes kept while waiting for their end (they start the next scan): unfinished markup and what follows it. */
  get pendingLength(): number {
    return this.pendingN + this.waitingN;
  }

  /** A copy of the {@link pendingLength} bytes kept. */
  get pending(): Uint8Array {
    const out = new Uint8Array(this.pendingLength);
    out.set(this.work.subarray(0, this.pendingN));
    let at = this.pendingN;
    for (const w of this.waiting) {
      out.set(w, at);
      at += w.length;
    }
    return out;
  }

  /**
   * Continues a document from the middle: the input starts right inside the root element (at a
   * checkpoint taken when only the root was open), so no root start tag will come.
   */
  resumeInsideRoot(): void {
    this.depth = 1;
    this.sawRoot = true;
  }

  /** Wanted names by length: a tag name is matched in place, without decoding it. */
  private readonly wanted: (string[] | undefined)[] = [];
  private readonly handler: XmlHandler;
  private readonly attrs = new XmlAttributes();

  /** `wanted`: element names (ASCII) whose tags are reported (with attributes) to `handler`. */
  constructor(wanted: ReadonlySet<string>, handler: XmlHandler) {
    for (const name of wanted) {
      const same = this.wanted[name.length] ?? [];
      same.push(name);
      this.wanted[name.length] = same;
    }
    this.handler = handler;
  }

  /**
   * Scans `chunk` (after any unfinished markup). Unfinished markup is scanned again from its start
   * when more bytes come, so while it is long, small chunks wait until as many new bytes have come as it
   * holds: a long piece (a DTD without its end) fed a byte at a time costs linear time, not quadratic.
   * The chunk is not kept: the caller may reuse it.
   */
  push(chunk: Uint8Array): void {
    if (this.error) return;
    if (this.pendingN > 0 && this.waitingN + chunk.length < this.pendingN) {
      this.waiting.push(chunk.slice());
      this.waitingN += chunk.length;
      this.checkCap();
      return;
    }
    this.scanPending(chunk);
  }

  private scanPending(chunk: Uint8Array): void {
    let s: Uint8Array;
    if (this.pendingN === 0 && this.waitingN === 0) {
      // Scanned where it lies, through a plain Uint8Array view: a Node Buffer is another kind of array,
      // and the scanning code stays fast when it only ever sees one.
      s = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length);
    } else {
      const n = this.pendingN + this.waitingN + chunk.length;
      this.reserve(n, this.pendingN);
      let at = this.pendingN;
      for (const w of this.waiting) {
        this.work.set(w, at);
        at += w.length;
      }
      this.work.set(chunk, at);
      this.waiting = [];
      this.waitingN = 0;
      s = this.work.subarray(0, n);
    }
    const i = this.scan(s);
    this.base += i;
    const rest = s.length - i;
    if (s.buffer === this.work.buffer) this.work.copyWithin(0, i, s.length);
    else {
      this.reserve(rest, 0);
      this.work.set(s.subarray(i));
    }
    this.pendingN = rest;
    this.checkCap();
  }

  /** Makes `work` hold at least `n` bytes, keeping its first `keep`. */
  private reserve(n: number, keep: number): void {
    if (n <= this.work.length) return;
    const grown = new Uint8Array(Math.max(n, this.work.length * 2));
    grown.set(this.work.subarray(0, keep));
    this.work = grown;
  }

  private checkCap(): void {
    if (this.pendingN + this.waitingN > MAX_MARKUP_BYTES) {
      this.error = { reason: "xml_malformed", offset: this.base, detail: "markup longer than the cap" };
    }
  }

  /** Ends the input; returns the problem if the document stopped inside markup or an open element. */
  finish(): XmlScanError | undefined {
    if (!this.error && this.waitingN > 0) this.scanPending(EMPTY);
    if (this.error) return this.error;
    // What is kept always starts with `<`: the document ended inside markup.
    if (this.pendingN > 0) {
      return { reason: "unexpected_eof", offset: this.base, detail: "ends inside markup" };
    }
    if (!this.sawRoot) return { reason: "xml_malformed", offset: this.base, detail: "no root element" };
    if (this.depth > 0)
      return { reason: "unexpected_eof", offset: this.base, detail: `${this.depth} open elements` };
    return undefined;
  }

  /**
   * Scans complete markup in `s`; returns the index of the first unconsumed byte. The searches for the
   * next `<`, `=`, quote or `>` are loops: they go a few bytes each, and `indexOf` costs a call into
   * the runtime each time (the scan took half as long again with it).
   */
  private scan(s: Uint8Array): number {
    let i = 0;
    const n = s.length;
    for (;;) {
      let lt = i;
      while (lt < n && s[lt] !== LT) lt++;
      if (lt + 1 >= n) return lt;
      const c = s[lt + 1];
      let next: number;
      if (c === SLASH) next = this.endTag(s, lt);
      else if (c === BANG) next = this.declaration(s, lt);
      else if (c === QUESTION) next = end(s, PI_END, lt + 2);
      else next = this.startTag(s, lt);
      if (next < 0) return lt;
      i = next;
    }
  }

  private endTag(s: Uint8Array, lt: number): number {
    let gt = lt + 2;
    while (gt < s.length && s[gt] !== GT) gt++;
    if (gt >= s.length) return -1;
    let from = lt + 2;
    let to = gt;
    while (from < to && (s[from] as number) <= 32) from++;
    while (to > from && (s[to - 1] as number) <= 32) to--;
    this.depth = Math.max(0, this.depth - 1);
    const name = this.wantedName(s, from, to);
    if (name !== undefined) this.handler.close(name, this.base + lt);
    return gt + 1;
  }

  private declaration(s: Uint8Array, lt: number): number {
    if (startsWith(s, lt, COMMENT_START)) return end(s, COMMENT_END, lt + 4);
    if (startsWith(s, lt, CDATA_START)) return end(s, CDATA_END, lt + 9);
    if (s.length - lt < 9) return -1;
    if (!startsWith(s, lt, DOCTYPE)) return end(s, GT_END, lt + 2);
    const gt = s.indexOf(GT, lt);
    const bracket = s.indexOf(91, lt);
    if (gt < 0 && bracket < 0) return -1;
    const hasSubset = bracket >= 0 && (gt < 0 || bracket < gt);
    let stop = gt + 1;
    let entities = 0;
    if (hasSubset) {
      const subset = skipSubset(s, bracket + 1);
      if (!subset) return -1;
      stop = subset.stop;
      entities = subset.entities;
    }
    const head = decodeBytes(s, lt, hasSubset ? bracket : gt);
    const external = /\b(SYSTEM|PUBLIC)\b/.test(head);
    if (entities > 0 || external) this.handler.doctype({ entities, external });
    return stop;
  }

  /** The wanted name written at `s[from, to)`, or undefined. */
  private wantedName(s: Uint8Array, from: number, to: number): string | undefined {
    const candidates = this.wanted[to - from];
    if (!candidates) return undefined;
    for (const name of candidates) if (bytesEqual(s, from, to, name)) return name;
    return undefined;
  }

  private startTag(s: Uint8Array, lt: number): number {
    const n = s.length;
    let j = lt + 1;
    for (; j < n; j++) {
      const c = s[j] as number;
      if (c <= 32 || c === SLASH || c === GT) break;
    }
    if (j >= n) return -1;
    const name = this.wantedName(s, lt + 1, j);
    const isWanted = name !== undefined;
    const attrs = this.attrs;
    if (isWanted) attrs.reset(s);
    let k = j;
    for (;;) {
      while (k < n && (s[k] as number) <= 32) k++;
      if (k >= n) return -1;
      const c = s[k];
      if (c === GT || c === SLASH) {
        const selfClosing = c === SLASH;
        if (selfClosing && k + 1 >= n) return -1;
        if (selfClosing && s[k + 1] !== GT) {
          this.error = {
            reason: "xml_malformed",
            offset: this.base + k,
            detail: `stray / in <${decodeBytes(s, lt + 1, j)}>`,
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
      let eq = k;
      while (eq < n && s[eq] !== EQUALS) eq++;
      if (eq >= n) return -1;
      let q = eq + 1;
      while (q < n && (s[q] as number) <= 32) q++;
      if (q >= n) return -1;
      const quote = s[q] as number;
      if (quote !== DQUOTE && quote !== SQUOTE) {
        this.error = {
          reason: "xml_malformed",
          offset: this.base + q,
          detail: `unquoted attribute in <${decodeBytes(s, lt + 1, j)}>`,
        };
        return n;
      }
      let close = q + 1;
      while (close < n && s[close] !== quote) close++;
      if (close >= n) return -1;
      if (isWanted) {
        let nameEnd = eq;
        while (nameEnd > k && (s[nameEnd - 1] as number) <= 32) nameEnd--;
        // A name with a space or markup in it (seen in hand-edited and broken exports): the element is
        // reported as malformed and skipped by the caller; scanning goes on after it.
        if (!isName(s, k, nameEnd)) attrs.malformed = true;
        else attrs.add(k, nameEnd, q + 1, close);
      }
      k = close + 1;
    }
  }
}

const ascii = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
const PI_END = ascii("?>");
const GT_END = ascii(">");
const COMMENT_START = ascii("<!--");
const COMMENT_END = ascii("-->");
const CDATA_START = ascii("<![CDATA[");
const CDATA_END = ascii("]]>");
const DOCTYPE = ascii("<!DOCTYPE");
const ENTITY_DECL = ascii("<!ENTITY");
const PI_START = ascii("<?");

/**
 * Steps over a DTD internal subset starting at `from` (after `[`) without interpreting it: comments,
 * processing instructions and quoted literals may hold `]>` and are skipped whole. Returns the index
 * after the closing `]>` and how many entity declarations it saw, or undefined if it has not ended yet.
 */
function skipSubset(s: Uint8Array, from: number): { stop: number; entities: number } | undefined {
  let entities = 0;
  let i = from;
  const n = s.length;
  while (i < n) {
    const c = s[i] as number;
    if (c === DQUOTE || c === SQUOTE) {
      const close = s.indexOf(c, i + 1);
      if (close < 0) return undefined;
      i = close + 1;
    } else if (c === LT && startsWith(s, i, COMMENT_START)) {
      const close = find(s, COMMENT_END, i + 4);
      if (close < 0) return undefined;
      i = close + 3;
    } else if (c === LT && startsWith(s, i, PI_START)) {
      const close = find(s, PI_END, i + 2);
      if (close < 0) return undefined;
      i = close + 2;
    } else if (c === 93) {
      let j = i + 1;
      while (j < n && (s[j] as number) <= 32) j++;
      if (j >= n) return undefined;
      if (s[j] === GT) return { stop: j + 1, entities };
      i = j;
    } else {
      if (c === LT && startsWith(s, i, ENTITY_DECL)) entities++;
      i++;
    }
  }
  return undefined;
}

function isName(s: Uint8Array, from: number, to: number): boolean {
  if (to <= from) return false;
  for (let i = from; i < to; i++) {
    const c = s[i] as number;
    if (c <= 32 || c === LT || c === GT || c === DQUOTE || c === SQUOTE || c === SLASH) return false;
  }
  return true;
}

/** True when `s` holds `seq` at `at` (false when `s` ends before it does). */
function startsWith(s: Uint8Array, at: number, seq: Uint8Array): boolean {
  if (at + seq.length > s.length) return false;
  for (let i = 0; i < seq.length; i++) if (s[at + i] !== seq[i]) return false;
  return true;
}

/** Index of the first `seq` in `s` from `from`, or -1. */
function find(s: Uint8Array, seq: Uint8Array, from: number): number {
  const first = seq[0] as number;
  for (let at = s.indexOf(first, from); at >= 0; at = s.indexOf(first, at + 1)) {
    if (startsWith(s, at, seq)) return at;
  }
  return -1;
}

function end(s: Uint8Array, terminator: Uint8Array, from: number): number {
  const at = find(s, terminator, from);
  return at < 0 ? -1 : at + terminator.length;
}
