import { describe, expect, it } from "vitest";
import { isSafeExternalUrl, type RenderOptions, renderMarkdown, splitIntroduction } from "./markdown.ts";

const options: RenderOptions = {
  resolveLink: (target) =>
    isSafeExternalUrl(target) || target.startsWith("/lms/materials/") ? target : null,
  resolveImage: (source) => (source === "images/ok.png" ? "/academy-media/ok.png" : null),
};
const render = (markdown: string) => renderMarkdown(markdown, options);

/** Every tag in the output must be one the renderer writes itself. */
const ALLOWED_TAGS = new Set([
  "p",
  "h2",
  "h3",
  "h4",
  "ul",
  "ol",
  "li",
  "em",
  "strong",
  "code",
  "pre",
  "a",
  "img",
]);
function tagsOf(html: string): string[] {
  return [...html.matchAll(/<\/?([a-zA-Z0-9]+)/g)].map((match) => (match[1] ?? "").toLowerCase());
}
/** Attribute names of every tag, with quoted values blanked out so escaped text cannot fool the check. */
function attributeNamesOf(html: string): string[] {
  return [...html.matchAll(/<[a-z0-9]+([^>]*)>/gi)].flatMap((match) =>
    [...(match[1] ?? "").replace(/"[^"]*"/g, '""').matchAll(/([a-z-]+)=/gi)].map((name) =>
      (name[1] ?? "").toLowerCase(),
    ),
  );
}
const ALLOWED_ATTRIBUTES = new Set(["href", "rel", "src", "alt", "loading"]);

describe("renderMarkdown", () => {
  it("renders headings, paragraphs, emphasis, lists and links", () => {
    const html = render(
      "Intro *soft* and **bold** `code`.\n\n## Part\n\n- one\n- two\n\n1. first\n2. second\n\n[site](https://example.com) [next](/lms/materials/time-domain)",
    );
    expect(html).toBe(
      [
        "<p>Intro <em>soft</em> and <strong>bold</strong> <code>code</code>.</p>",
        "<h2>Part</h2>",
        "<ul><li>one</li><li>two</li></ul>",
        "<ol><li>first</li><li>second</li></ol>",
        '<p><a href="https://example.com" rel="noopener noreferrer">site</a> <a href="/lms/materials/time-domain">next</a></p>',
      ].join("\n"),
    );
  });

  it("renders an allowed image and shows the alt text of any other", () => {
    expect(render("![graph](images/ok.png)")).toBe(
      '<p><img src="/academy-media/ok.png" alt="graph" loading="lazy"></p>',
    );
    expect(render("![graph](https://tracker.example/x.png)")).toBe("<p>graph</p>");
  });

  it.each([
    ["a script tag", "<script>alert(1)</script>"],
    ["raw HTML with an event handler", '<img src=x onerror="alert(1)">'],
    ["an iframe", '<iframe src="https://evil.example"></iframe>'],
    ["a javascript: link", "[click](javascript:alert(1))"],
    ["a JavaScript: link in mixed case", "[click](JaVaScRiPt:alert(1))"],
    ["a data: link", "[click](data:text/html;base64,PHNjcmlwdD4=)"],
    ["a vbscript: link", "[click](vbscript:msgbox)"],
    ["a protocol-relative link", "[click](//evil.example/x)"],
    ["an attribute break-out in a link", '[x](https://example.com/"onmouseover="alert(1))'],
    ["an attribute break-out in alt text", '![" onerror="alert(1)](images/ok.png)'],
    ["a javascript: image", "![x](javascript:alert(1))"],
    ["HTML inside emphasis", "**<b onclick=alert(1)>x</b>**"],
    ["HTML inside a heading", "## <svg onload=alert(1)>"],
    ["HTML inside a list item", "- <a href=javascript:alert(1)>x</a>"],
    ["HTML inside a code block", "```\n<script>alert(1)</script>\n```"],
    ["an entity-encoded script", "&lt;script&gt;alert(1)&lt;/script&gt;"],
  ])("escapes %s", (_label, markdown) => {
    const html = render(markdown);
    for (const tag of tagsOf(html)) expect(ALLOWED_TAGS.has(tag), `${tag} in ${html}`).toBe(true);
    for (const name of attributeNamesOf(html))
      expect(ALLOWED_ATTRIBUTES.has(name), `${name} in ${html}`).toBe(true);
    expect(html).not.toMatch(/(href|src)="(?!https?:\/\/|\/)/i);
    expect(html).not.toMatch(/(href|src)="\/\//i);
    expect(html.toLowerCase()).not.toContain("<script");
  });

  it("keeps entity text escaped rather than decoding it", () => {
    expect(render("&lt;script&gt;")).toBe("<p>&amp;lt;script&amp;gt;</p>");
  });

  it("never emits a tag it did not write, for random hostile input", () => {
    const pieces = [
      "<",
      ">",
      '"',
      "'",
      "[",
      "]",
      "(",
      ")",
      "!",
      "*",
      "`",
      "#",
      "-",
      "\n",
      "javascript:",
      "on",
      "=",
      "a",
      " ",
    ];
    const count = process.env.TONUS_HEAVY ? 10_000 : 500;
    let seed = 42;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed;
    };
    for (let run = 0; run < count; run++) {
      let markdown = "";
      for (let i = 0; i < 40; i++) markdown += pieces[next() % pieces.length];
      const html = render(markdown);
      for (const tag of tagsOf(html)) expect(ALLOWED_TAGS.has(tag), markdown).toBe(true);
      for (const name of attributeNamesOf(html)) expect(ALLOWED_ATTRIBUTES.has(name), markdown).toBe(true);
      expect(html, markdown).not.toMatch(/(href|src)="(?!https?:\/\/|\/lms\/|\/academy-media\/)/i);
    }
  });
});

describe("splitIntroduction", () => {
  it("keeps only what comes before the first section heading", () => {
    expect(splitIntroduction("Intro.\n\nMore intro.\n\n## Locked\n\nSecret.")).toBe("Intro.\n\nMore intro.");
    expect(splitIntroduction("No sections at all.")).toBe("No sections at all.");
  });
});
