import { describe, expect, it } from "vitest";
import { checkUserpicFiles, USERPIC_MAX_BYTES } from "./userpic-rules.ts";

const png = { name: "me.png", type: "image/png", size: 1000 };

describe("checkUserpicFiles", () => {
  it("ignores an empty drop", () => {
    expect(checkUserpicFiles([])).toBe("none");
  });

  it("accepts one JPG, GIF, PNG or BMP up to 5 MB", () => {
    expect(checkUserpicFiles([png])).toBe("ok");
    expect(checkUserpicFiles([{ name: "a.bmp", type: "image/bmp", size: USERPIC_MAX_BYTES }])).toBe("ok");
  });

  it("refuses several files, other types and files over 5 MB", () => {
    expect(checkUserpicFiles([png, png])).toBe("several_files");
    expect(checkUserpicFiles([{ name: "a.svg", type: "image/svg+xml", size: 10 }])).toBe("wrong_type");
    expect(checkUserpicFiles([{ ...png, size: USERPIC_MAX_BYTES + 1 }])).toBe("too_large");
  });
});
