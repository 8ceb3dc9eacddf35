/**
 * Renders the Markdown subset the academy uses to HTML. Every character of the source is escaped; the
 * only tags in the output are the ones written here, and the only attribute values taken from content
 * are link targets that passed `resolveLink` and image sources that passed `resolveImage`. Raw HTML in a
 * content file is therefore shown as text, never interpreted.
 */
export interface RenderOptions {
  /** Maps a link target to a safe URL, or null to render the link text only. */
  resolveLink: (target: string) => string | null;
  /** Maps an image source to a URL served by us, or null to render the alt text only. */
  resolveImage: (source: string) => string | null;
}

export function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/** Only absolute http(s) URLs leave the site; everything else must be resolved by the caller. */
export function isSafeExternalUrl(target: string): boolean {
  try {
    const url = new URL(target);
    return (url.protocol === "http:" || url.protocol === "https:") && target === target.trim();
  } catch {
    return false;
  }
}

export function renderMarkdown(markdown: string, options: RenderOptions): string {
  const lines = markdown.replace(/\r\n?/g, "\n").split("\n");
  const out: string[] = [];
  let paragraph: string[] = [];
  let list: { tag: "ul" | "ol"; items: string[] } | null = null;

  const flushParagraph = () => {
    if (paragraph.length > 0) out.push(`<p>${renderInline(paragraph.join(" "), options)}</p>`);
    paragraph = [];
  };
  const flushList = () => {
    if (list) out.push(`<${list.tag}>${list.items.map((item) => `<li>${item}</li>`).join("")}</${list.tag}>`);
    list = null;
  };

  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? "";
    const fence = /^```/.exec(line);
    if (fence) {
      flushParagraph();
      flushList();
      const code: string[] = [];
      for (index++; index < lines.length && !/^```\s*$/.test(lines[index] ?? ""); index++)
        code.push(lines[index] ?? "");
      out.push(`<pre><code>${escapeHtml(code.join("\n"))}</code></pre>`);
      continue;
    }
    if (line.trim() === "") {
      flushParagraph();
      flushList();
      continue;
    }
    const heading = /^(#{1,4})\s+(.*)$/.exec(line);
    if (heading) {
      flushParagraph();
      flushList();
      // The page owns h1 (the material title), so content headings start at h2.
      const level = Math.min(Math.max((heading[1] ?? "").length, 2), 4);
      out.push(`<h${level}>${renderInline((heading[2] ?? "").trim(), options)}</h${level}>`);
      continue;
    }
    const bullet = /^\s*[-*]\s+(.*)$/.exec(line);
    const numbered = /^\s*\d+[.)]\s+(.*)$/.exec(line);
    const item = bullet ?? numbered;
    if (item) {
      flushParagraph();
      const tag = bullet ? "ul" : "ol";
      if (list && list.tag !== tag) flushList();
      list ??= { tag, items: [] };
      list.items.push(renderInline(item[1] ?? "", options));
      continue;
    }
    if (list && /^\s+\S/.test(line)) {
      // A continuation line of the last list item.
      const last = list.items.length - 1;
      list.items[last] = `${list.items[last]} ${renderInline(line.trim(), options)}`;
      continue;
    }
    flushList();
    paragraph.push(line.trim());
  }
  flushParagraph();
  flushList();
  return out.join("\n");
}

const INLINE = /(!?)\[([^\]]*)\]\(([^)\s]*)\)|`([^`]+)`|\*\*([^*]+)\*\*|\*([^*]+)\*/g;

/** Inline markup; text between matches is escaped, and so is every captured piece. */
export function renderInline(text: string, options: RenderOptions): string {
  let html = "";
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    html += escapeHtml(text.slice(last, match.index));
    last = match.index + match[0].length;
    const [, bang, label, target, code, strong, em] = match;
    if (code !== undefined) html += `<code>${escapeHtml(code)}</code>`;
    else if (strong !== undefined) html += `<strong>${renderInline(strong, options)}</strong>`;
    else if (em !== undefined) html += `<em>${renderInline(em, options)}</em>`;
    else if (bang === "!") {
      const source = options.resolveImage(target ?? "");
      html += source
        ? `<img src="${escapeHtml(source)}" alt="${escapeHtml(label ?? "")}" loading="lazy">`
        : escapeHtml(label ?? "");
    } else {
      const href = options.resolveLink(target ?? "");
      const inner = renderInline(label ?? "", options);
      if (!href) html += inner;
      else if (isSafeExternalUrl(href))
        html += `<a href="${escapeHtml(href)}" rel="noopener noreferrer">${inner}</a>`;
      else html += `<a href="${escapeHtml(href)}">${inner}</a>`;
    }
  }
  return html + escapeHtml(text.slice(last));
}

/** The introduction of a PRO material: everything before its first `##` heading. */
export function splitIntroduction(markdown: string): string {
  const at = markdown.search(/^##\s/m);
  return (at === -1 ? markdown : markdown.slice(0, at)).trim();
}
