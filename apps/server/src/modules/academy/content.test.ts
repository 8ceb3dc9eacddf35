import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ACADEMY_PARAMETER_KEYS } from "@tonus/contract";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_ACADEMY_DIR, LOCALES, loadAcademyContent } from "./content.ts";
import { FrontMatterError, parseYamlSubset, splitFrontMatter } from "./front-matter.ts";

describe("the academy content in the repository", () => {
  const content = loadAcademyContent(DEFAULT_ACADEMY_DIR);

  it("has no problems: front matter, both languages, sources, unique slugs, links and images", () => {
    expect(content.problems).toEqual([]);
  });

  it("holds at least four courses with five or more materials each", () => {
    expect(content.courses.length).toBeGreaterThanOrEqual(4);
    for (const course of content.courses) expect(course.materials.length).toBeGreaterThanOrEqual(5);
  });

  it("has every material in English and Russian", () => {
    for (const course of content.courses) {
      for (const material of course.materials) {
        for (const locale of LOCALES)
          expect(material.versions[locale], `${material.slug} ${locale}`).toBeDefined();
      }
    }
  });

  it("marks one or two materials of each course as PRO", () => {
    for (const course of content.courses) {
      const pro = course.materials.filter((material) => material.pro).length;
      expect(pro, course.id).toBeGreaterThanOrEqual(1);
      expect(pro, course.id).toBeLessThanOrEqual(2);
    }
  });

  it("offers a resonance-breathing exercise with a pacer and at least one quiz", () => {
    const materials = content.courses.flatMap((course) => course.materials);
    const breathing = materials.find((material) => material.kind === "exercise" && material.pacer);
    expect(breathing?.pacer).toEqual({ inhale_s: 4, exhale_s: 6, duration_min: 5 });
    const quiz = materials.find((material) => material.kind === "quiz");
    expect(quiz?.versions.en?.quiz?.length).toBeGreaterThan(0);
    expect(quiz?.versions.ru?.quiz?.length).toBe(quiz?.versions.en?.quiz?.length);
  });

  it("explains every measurement parameter in at least one material", () => {
    const explained = new Set(content.courses.flatMap((c) => c.materials.flatMap((m) => m.parameters)));
    for (const key of ACADEMY_PARAMETER_KEYS) expect(explained.has(key), key).toBe(true);
  });

  it("keeps the quiz answers identical between languages", () => {
    for (const material of content.courses.flatMap((course) => course.materials)) {
      if (material.kind !== "quiz") continue;
      const correct = (locale: "en" | "ru") => material.versions[locale]?.quiz?.map((q) => [q.id, q.correct]);
      expect(correct("ru")).toEqual(correct("en"));
    }
  });
});

describe("the content check", () => {
  const root = mkdtempSync(path.join(tmpdir(), "academy-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const courseYaml = (id: string, missing = "") =>
    `id: ${id}\norder: 1\ntitle:\n  en: T\n  ru: Т\ndescription:\n  en: D\n  ru: О\n${missing}`;
  const material = (slug: string, locale: "en" | "ru", extra = "", body = "Text.") =>
    `---\ntitle: A\nslug: ${slug}\norder: 1\nkind: lecture\nduration_min: 3\npro: false\nparameters: [rmssd]\n${extra}---\n\n${body}\n\n## ${locale === "en" ? "Sources" : "Источники"}\n\n- Ref.\n`;

  function writeCourse(id: string, files: Record<string, string>): string {
    const dir = path.join(root, id);
    mkdirSync(dir, { recursive: true });
    for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
    return dir;
  }

  function problemsFor(id: string, files: Record<string, string>): string[] {
    writeCourse(path.join(`case-${id}`, id), files);
    return loadAcademyContent(path.join(root, `case-${id}`)).problems;
  }

  it("accepts a well-formed course", () => {
    const files = {
      "course.yaml": courseYaml("good"),
      "1-a.en.md": material("a", "en"),
      "1-a.ru.md": material("a", "ru"),
    };
    expect(problemsFor("good", files)).toEqual([]);
  });

  it("reports a material missing in one language unless the course lists it as missing", () => {
    const files = { "course.yaml": courseYaml("gap"), "1-a.en.md": material("a", "en") };
    expect(problemsFor("gap", files).join()).toContain("no ru version");
    const declared = { ...files, "course.yaml": courseYaml("gap2", "missing:\n  a: ru\n") };
    expect(problemsFor("gap2", declared)).toEqual([]);
  });

  it("reports a material without sources", () => {
    const files = {
      "course.yaml": courseYaml("nosrc"),
      "1-a.en.md": material("a", "en").replace("## Sources", "## Notes"),
      "1-a.ru.md": material("a", "ru"),
    };
    expect(problemsFor("nosrc", files).join()).toContain('"## Sources"');
  });

  it("reports unknown parameter keys, unknown front-matter keys and a bad kind", () => {
    const files = {
      "course.yaml": courseYaml("bad"),
      "1-a.en.md": material("a", "en").replace("[rmssd]", "[rmssd, heart_vibes]"),
      "1-a.ru.md": material("a", "ru", "author: me\n"),
      "2-b.en.md": material("b", "en").replace("order: 1", "order: 2").replace("lecture", "podcast"),
      "2-b.ru.md": material("b", "ru").replace("order: 1", "order: 2"),
    };
    const problems = problemsFor("bad", files).join("\n");
    expect(problems).toContain("1-a.en.md");
    expect(problems).toContain("1-a.ru.md");
    expect(problems).toContain("2-b.en.md");
  });

  it("reports links and images that do not resolve and remote images", () => {
    const body =
      "[other](2-nowhere.en.md) ![fig](images/none.png) ![x](https://example.com/x.png) [ok](https://example.com)";
    const files = {
      "course.yaml": courseYaml("links"),
      "1-a.en.md": material("a", "en", "", body),
      "1-a.ru.md": material("a", "ru", "", "[self](1-a.en.md)"),
    };
    const problems = problemsFor("links", files);
    expect(problems).toHaveLength(3);
  });

  it("reports a slug used by two courses", () => {
    const dir = path.join(root, "case-dup");
    writeCourse(path.join("case-dup", "one"), {
      "course.yaml": courseYaml("one"),
      "1-same.en.md": material("same", "en"),
      "1-same.ru.md": material("same", "ru"),
    });
    writeCourse(path.join("case-dup", "two"), {
      "course.yaml": courseYaml("two"),
      "1-same.en.md": material("same", "en"),
      "1-same.ru.md": material("same", "ru"),
    });
    expect(loadAcademyContent(dir).problems.join()).toContain('"same" is also used');
  });

  it("reports a quiz whose correct answer is not one of its options", () => {
    const quiz =
      '```quiz\n[{"id":"q1","question":"Q","options":["a","b"],"correct":2,"explanation":"E"}]\n```';
    const text = (locale: "en" | "ru") =>
      material("q", locale, "", quiz).replace("kind: lecture", "kind: quiz");
    const files = { "course.yaml": courseYaml("quiz"), "1-q.en.md": text("en"), "1-q.ru.md": text("ru") };
    expect(problemsFor("quiz", files).join()).toContain("correct");
  });
});

describe("the front-matter parser", () => {
  it("reads scalars, inline lists and maps, and one level of nesting", () => {
    const parsed = parseYamlSubset(
      'a: 1\nb: true\nc: "x: y"\nd: [one, two]\ne: { inhale_s: 4, exhale_s: 6.5 }\nf:\n  en: Hi\n  ru: Привет\n# comment\n',
    );
    expect(parsed).toEqual({
      a: 1,
      b: true,
      c: "x: y",
      d: ["one", "two"],
      e: { inhale_s: 4, exhale_s: 6.5 },
      f: { en: "Hi", ru: "Привет" },
    });
  });

  it.each([
    ["an anchor", "a: &x 1"],
    ["a tag", "a: !!python/object x"],
    ["a duplicate key", "a: 1\na: 2"],
    ["an unquoted colon", "a: b: c"],
    ["a nested inline list", "a: [[1]]"],
    ["bad indentation", "a:\n    b: 1"],
    ["a block scalar", "a: |"],
  ])("refuses %s", (_label, text) => {
    expect(() => parseYamlSubset(text)).toThrow(FrontMatterError);
  });

  it.each(["__proto__", "constructor", "prototype"])("refuses the key %s", (key) => {
    expect(() => parseYamlSubset(`${key}:\n  polluted: true`)).toThrow(FrontMatterError);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("needs a closing front-matter line", () => {
    expect(() => splitFrontMatter("---\ntitle: x\n\nbody")).toThrow(FrontMatterError);
  });
});
