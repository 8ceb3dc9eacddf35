import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { crc32, deflateSync } from "node:zlib";
import fc from "fast-check";
import sharp from "sharp";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp, type TestClient } from "../../test/harness.ts";
import { createTestUser } from "../../test/users.ts";

const HEAVY = Boolean(process.env.TONUS_HEAVY);
const UPLOAD = "/dashboard_api/v1/user/profile/userpic/upload/";
const PROFILE = "/dashboard_api/v1/user/profile/";

type Part = { filename: string; contentType: string; data: Buffer };

/** A multipart/form-data body with the given file parts under the field name `file`. */
function multipart(parts: Part[]): { payload: Buffer; headers: Record<string, string> } {
  const boundary = "----tonus-test-boundary";
  const chunks: Buffer[] = [];
  for (const p of parts) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${p.filename}"\r\nContent-Type: ${p.contentType}\r\n\r\n`,
      ),
      p.data,
      Buffer.from("\r\n"),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return {
    payload: Buffer.concat(chunks),
    headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
  };
}

function upload(client: TestClient, ...parts: Part[]) {
  return client.request("POST", UPLOAD, multipart(parts));
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A 1-bit greyscale PNG of the given size; with `rows` false, the header only (no pixel data). */
function makePng(widthPx: number, heightPx: number, rows: boolean): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(widthPx, 0);
  ihdr.writeUInt32BE(heightPx, 4);
  ihdr.writeUInt8(1, 8);
  ihdr.writeUInt8(0, 9);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const chunks = [signature, pngChunk("IHDR", ihdr)];
  if (rows)
    chunks.push(
      pngChunk("IDAT", deflateSync(Buffer.alloc((1 + Math.ceil(widthPx / 8)) * heightPx), { level: 9 })),
    );
  chunks.push(pngChunk("IEND", Buffer.alloc(0)));
  return Buffer.concat(chunks);
}

/** A 24-bit bottom-up BMP; `claimed` overrides the header size (for a bomb with no pixel data). */
function makeBmp(widthPx: number, heightPx: number, rgb: [number, number, number], claimed?: number): Buffer {
  const rowBytes = Math.ceil((widthPx * 3) / 4) * 4;
  const pixelBytes = claimed ? 0 : rowBytes * heightPx;
  const out = Buffer.alloc(54 + pixelBytes);
  out.write("BM", 0, "latin1");
  out.writeUInt32LE(out.length, 2);
  out.writeUInt32LE(54, 10);
  out.writeUInt32LE(40, 14);
  out.writeInt32LE(claimed ?? widthPx, 18);
  out.writeInt32LE(claimed ?? heightPx, 22);
  out.writeUInt16LE(1, 26);
  out.writeUInt16LE(24, 28);
  out.writeUInt32LE(pixelBytes, 34);
  for (let y = 0; y < heightPx && !claimed; y++) {
    for (let x = 0; x < widthPx; x++) {
      const at = 54 + y * rowBytes + x * 3;
      out[at] = rgb[2];
      out[at + 1] = rgb[1];
      out[at + 2] = rgb[0];
    }
  }
  return out;
}

/** An animated GIF of `frames` 1×1 frames, built by hand so 10,000 frames stay small. */
function makeGif(frames: number): Buffer {
  const header = Buffer.from("GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff", "latin1");
  const loop = Buffer.from("\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00", "latin1");
  const frame = Buffer.from(
    "\x21\xf9\x04\x00\x01\x00\x00\x00\x2c\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02\x44\x01\x00",
    "latin1",
  );
  return Buffer.concat([header, loop, ...Array.from({ length: frames }, () => frame), Buffer.from(";")]);
}

const solid = (format: "jpeg" | "png" | "gif") =>
  sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 30, b: 30 } } })
    .toFormat(format)
    .toBuffer();

describe.each(BACKENDS)("userpic upload on %s", (backend) => {
  let app: App;
  let filesDir: string;
  beforeAll(async () => {
    filesDir = fs.mkdtempSync(path.join(os.tmpdir(), "tonus-files-"));
    app = await buildTestApp(await getTestDatabase(backend), { FILES_DIR: filesDir });
  });
  afterAll(async () => {
    await app.close();
    fs.rmSync(filesDir, { recursive: true, force: true });
  });
  beforeEach(async () => resetDatabase(app.ctx.database));

  async function signedIn(): Promise<TestClient> {
    return (await createTestUser(app.ctx.database)).client(app);
  }

  it("accepts JPG, PNG, GIF and BMP, re-encodes them to a 512×512 WebP and serves it privately (U1)", async () => {
    const client = await signedIn();
    const inputs: Part[] = [
      { filename: "a.jpg", contentType: "image/jpeg", data: await solid("jpeg") },
      { filename: "a.png", contentType: "image/png", data: await solid("png") },
      { filename: "a.gif", contentType: "image/gif", data: await solid("gif") },
      { filename: "a.bmp", contentType: "image/bmp", data: makeBmp(5, 3, [20, 40, 220]) },
    ];
    for (const input of inputs) {
      const res = await upload(client, input);
      expect(res.statusCode, input.filename).toBe(200);
      const { url } = res.json();
      expect(url).toMatch(/^\/media\/userpics\/[0-9a-f]{32}\.webp$/);
      expect((await client.get(PROFILE)).json().userpic).toBe(url);
      const media = await client.get(url);
      expect(media.statusCode).toBe(200);
      expect(media.headers["content-type"]).toBe("image/webp");
      expect(media.headers["x-content-type-options"]).toBe("nosniff");
      expect(media.headers["cache-control"]).toContain("private");
      const meta = await sharp(media.rawPayload).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(["webp", 512, 512]);
    }
    // Each upload replaced (and deleted) the previous file.
    expect(fs.readdirSync(path.join(filesDir, "userpics")).filter((n) => n.endsWith(".webp"))).toHaveLength(
      1,
    );
    const bmpUrl = (await client.get(PROFILE)).json().userpic;
    const { data } = await sharp((await client.get(bmpUrl)).rawPayload)
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect(data[2]).toBeGreaterThan(150);
    expect(data[0]).toBeLessThan(80);
  });

  it("refuses oversized, empty, multiple and non-image uploads, by content not by name (U1)", async () => {
    const client = await signedIn();
    const png = await solid("png");
    const tooBig = Buffer.concat([png, Buffer.alloc(5 * 1024 * 1024 + 1 - png.length)]);
    const cases: [string, Part[], number, string][] = [
      [
        "5 MB + 1 byte",
        [{ filename: "big.png", contentType: "image/png", data: tooBig }],
        413,
        "file_too_large",
      ],
      [
        "0 bytes",
        [{ filename: "empty.png", contentType: "image/png", data: Buffer.alloc(0) }],
        400,
        "invalid_image",
      ],
      ["no file", [], 400, "invalid_image"],
      [
        "two files",
        [
          { filename: "a.png", contentType: "image/png", data: png },
          { filename: "b.png", contentType: "image/png", data: png },
        ],
        400,
        "invalid_image",
      ],
      [
        "SVG named .png",
        [
          {
            filename: "x.png",
            contentType: "image/png",
            data: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
          },
        ],
        400,
        "invalid_image",
      ],
      [
        "HTML",
        [
          {
            filename: "x.jpg",
            contentType: "image/jpeg",
            data: Buffer.from("<!doctype html><script>alert(1)</script>"),
          },
        ],
        400,
        "invalid_image",
      ],
      [
        "ZIP named .jpg",
        [
          {
            filename: "x.jpg",
            contentType: "image/jpeg",
            data: Buffer.from("PK\x03\x04\x14\x00\x00\x00\x08\x00", "latin1"),
          },
        ],
        400,
        "invalid_image",
      ],
      [
        "truncated JPEG",
        [{ filename: "x.jpg", contentType: "image/jpeg", data: (await solid("jpeg")).subarray(0, 40) }],
        400,
        "invalid_image",
      ],
    ];
    for (const [label, parts, status, code] of cases) {
      const res = await upload(client, ...parts);
      expect(res.statusCode, label).toBe(status);
      expect(res.json().code, label).toBe(code);
    }
    expect((await client.get(PROFILE)).json().userpic).toBeNull();
  });

  it("refuses a BMP whose header claims more pixels than the file holds, without decoding it", async () => {
    const client = await signedIn();
    const started = performance.now();
    const res = await upload(client, {
      filename: "short.bmp",
      contentType: "image/bmp",
      data: makeBmp(1, 1, [0, 0, 0], 4096),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe("invalid_image");
    // Decoding the pixels the header claims would take far longer; the bound is as loose as the bombs'
    // below so that a busy machine does not fail it.
    expect(performance.now() - started).toBeLessThan(3000);
  });

  it("refuses a non-multipart body with a 4xx", async () => {
    const client = await signedIn();
    const res = await client.post(UPLOAD, { file: "x" });
    expect(res.statusCode).toBe(400);
  });

  it("refuses pixel and frame bombs from their headers, quickly (U2)", async () => {
    const client = await signedIn();
    const bombs: Part[] = [
      { filename: "16k.png", contentType: "image/png", data: makePng(16_000, 16_000, true) },
      { filename: "30k.png", contentType: "image/png", data: makePng(30_000, 30_000, false) },
      { filename: "100k.bmp", contentType: "image/bmp", data: makeBmp(1, 1, [0, 0, 0], 100_000) },
      { filename: "wide.bmp", contentType: "image/bmp", data: makeBmp(1, 1, [0, 0, 0], 4097) },
      { filename: "frames.gif", contentType: "image/gif", data: makeGif(10_000) },
    ];
    const rssBefore = process.memoryUsage().rss;
    for (const bomb of bombs) {
      const started = performance.now();
      const res = await upload(client, bomb);
      const elapsedMs = performance.now() - started;
      expect(res.statusCode, bomb.filename).toBe(400);
      expect(res.json().code, bomb.filename).toBe("image_too_large");
      // Refused from the header: decoding any of these would take many seconds and gigabytes. The bound
      // is loose so a busy machine does not fail it; the exact time is not the point.
      expect(elapsedMs, bomb.filename).toBeLessThan(3000);
    }
    // Decoding the 16,000² PNG would take a gigabyte, the 30,000² one and the 100,000² BMP more; the
    // bound leaves room for what else this process does meanwhile (PGlite's heap grows in large steps).
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(200 * 1024 * 1024);
  });

  it("strips EXIF, GPS and XMP and applies the orientation (U3)", async () => {
    const client = await signedIn();
    // Top half red, bottom half blue; EXIF orientation 6 turns it 90° clockwise: red right, blue left.
    const halves = await sharp({ create: { width: 64, height: 32, channels: 3, background: "blue" } })
      .composite([
        { input: { create: { width: 64, height: 16, channels: 3, background: "red" } }, top: 0, left: 0 },
      ])
      .png()
      .toBuffer();
    const withoutComment = await sharp(halves)
      .jpeg()
      .withExifMerge({
        IFD0: { ImageDescription: "secret comment" },
        IFD3: {
          GPSLatitudeRef: "N",
          GPSLatitude: "55/1 45/1 0/1",
          GPSLongitudeRef: "E",
          GPSLongitude: "37/1 37/1 0/1",
        },
      })
      .withMetadata({ orientation: 6 })
      .withXmp(
        '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/></x:xmpmeta>',
      )
      .toBuffer();
    // sharp cannot write a JPEG comment: splice a COM segment in right after the SOI marker.
    const comment = Buffer.from("tonus-secret-jpeg-comment");
    const com = Buffer.concat([Buffer.from([0xff, 0xfe, 0, comment.length + 2]), comment]);
    const jpeg = Buffer.concat([withoutComment.subarray(0, 2), com, withoutComment.subarray(2)]);
    const input = await sharp(jpeg).metadata();
    expect(jpeg.includes(comment)).toBe(true);
    expect(input.exif).toBeDefined();
    expect(input.orientation).toBe(6);
    expect(input.xmp).toBeDefined();
    const res = await upload(client, { filename: "gps.jpg", contentType: "image/jpeg", data: jpeg });
    expect(res.statusCode).toBe(200);
    const stored = (await client.get(res.json().url)).rawPayload;
    const meta = await sharp(stored).metadata();
    expect(meta.exif).toBeUndefined();
    expect(meta.xmp).toBeUndefined();
    expect(meta.orientation).toBeUndefined();
    expect(stored.includes("secret comment")).toBe(false);
    expect(stored.includes(comment)).toBe(false);
    expect(stored.includes("GPS")).toBe(false);
    const { data, info } = await sharp(stored).raw().toBuffer({ resolveWithObject: true });
    const pixel = (x: number, y: number) =>
      data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3);
    expect(pixel(20, 256)[2]).toBeGreaterThan(150);
    expect(pixel(490, 256)[0]).toBeGreaterThan(150);
  });

  it("serves a picture only to its owner and only under a generated name (A1)", async () => {
    const a = (await createTestUser(app.ctx.database)).client(app);
    const b = (await createTestUser(app.ctx.database)).client(app);
    const { url } = (
      await upload(b, { filename: "b.png", contentType: "image/png", data: await solid("png") })
    ).json();
    expect((await a.get(url)).statusCode).toBe(404);
    expect((await app.inject({ method: "GET", url })).statusCode).toBe(403);
    for (const name of ["..%2F..%2Fetc%2Fpasswd", "%2e%2e", "x.webp", `${url.split("/").pop()}.html`]) {
      expect((await b.get(`/media/userpics/${name}`)).statusCode, name).toBe(404);
    }
    expect((await b.get(url)).statusCode).toBe(200);
  });

  it("answers malformed upload bodies with a 4xx in the error shape, never a 5xx", async () => {
    const client = await signedIn();
    const png = await solid("png");
    const bytes = fc.uint8Array({ maxLength: 2048 }).map((a) => Buffer.from(a));
    const body = fc.oneof(
      // Random bytes as the one file, or a real image with random bytes spliced in.
      bytes.map((data) => multipart([{ filename: "x.png", contentType: "image/png", data }])),
      fc
        .tuple(fc.nat(png.length), bytes)
        .map(([at, junk]) =>
          multipart([
            { filename: "x.png", contentType: "image/png", data: Buffer.concat([png.subarray(0, at), junk]) },
          ]),
        ),
      // Broken multipart framing and wrong content types.
      bytes.map((payload) => ({ payload, headers: { "content-type": "multipart/form-data; boundary=zz" } })),
      fc
        .string()
        .map((payload) => ({ payload: Buffer.from(payload), headers: { "content-type": "text/plain" } })),
    );
    await fc.assert(
      fc.asyncProperty(body, async (request) => {
        const res = await client.request("POST", UPLOAD, request);
        expect(res.statusCode).toBeGreaterThanOrEqual(200);
        expect(res.statusCode).toBeLessThan(500);
        if (res.statusCode >= 400) expect(typeof res.json().code).toBe("string");
      }),
      { numRuns: HEAVY ? 3000 : 150 },
    );
  });
});
