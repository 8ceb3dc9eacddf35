/**
 * A local replica of IFTTT's endpoint tests (https://ifttt.com/docs/testing), for CI and for operators
 * before they run IFTTT's own tester (RELIABILITY O7). Like IFTTT's tool it talks HTTP to a running
 * service and is driven by what `POST /ifttt/v1/test/setup` returns: the access token and the samples
 * of every trigger, trigger-field validation and action. It reconstructs the checks IFTTT documents:
 * the service key on status and test/setup, user info, every trigger with and without its fields,
 * `limit` 0, 1 and the default, newest first, stable and unique `meta.id`, `meta.timestamp` in seconds,
 * field options and validation, actions with their samples and their skipping samples (`SKIP`), 401 on
 * bad tokens, unknown request fields accepted, and JSON (UTF-8) answers with IFTTT's error shape.
 *
 * Run against a service in test mode:
 *   IFTTT_SERVICE_KEY=… node apps/server/src/modules/ifttt/ifttt.conformance.ts https://tonus.example.org
 */

export type CheckResult = { name: string; ok: boolean; detail?: string };

type Samples = {
  triggers?: Record<string, Record<string, unknown>>;
  triggerFieldValidations?: Record<string, Record<string, { valid: unknown; invalid: unknown }>>;
  actions?: Record<string, Record<string, unknown>>;
  actionRecordSkipping?: Record<string, Record<string, unknown>>;
};

type Answer = { status: number; contentType: string; body: unknown };

const PREFIX = "/ifttt/v1";
const DEFAULT_LIMIT = 50;
/** The timezone and source IFTTT sends with every trigger and action request. */
const USER = { timezone: "America/Los_Angeles" };
const SOURCE = { id: "2", url: "https://ifttt.com/myrecipes/personal/2" };

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

export async function runIftttConformance(options: {
  baseUrl: string;
  serviceKey: string;
  fetch?: typeof fetch;
}): Promise<CheckResult[]> {
  const doFetch = options.fetch ?? fetch;
  const results: CheckResult[] = [];
  const check = (name: string, ok: boolean, detail?: string) =>
    results.push(ok ? { name, ok } : { name, ok, detail: detail ?? "failed" });

  async function call(
    method: "GET" | "POST" | "DELETE",
    path: string,
    opts: { key?: string; token?: string; body?: unknown } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = {
      Accept: "application/json",
      "Accept-Charset": "utf-8",
      "X-Request-ID": crypto.randomUUID(),
    };
    if (opts.key !== undefined) headers["IFTTT-Service-Key"] = opts.key;
    if (opts.token !== undefined) headers.Authorization = `Bearer ${opts.token}`;
    if (opts.body !== undefined) headers["Content-Type"] = "application/json";
    const res = await doFetch(`${options.baseUrl}${PREFIX}${path}`, {
      method,
      headers,
      ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
    });
    const text = await res.text();
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = text;
    }
    return { status: res.status, contentType: res.headers.get("content-type") ?? "", body };
  }

  /** Every answer is JSON in UTF-8; an error answer carries `errors: [{message}]`. */
  const shapeProblem = (a: Answer): string | null => {
    if (!/^application\/json\b/i.test(a.contentType) || !/charset=utf-8/i.test(a.contentType))
      return `content type ${a.contentType || "missing"}`;
    if (a.status >= 400) {
      const errors = isRecord(a.body) ? a.body.errors : undefined;
      if (
        !Array.isArray(errors) ||
        errors.length === 0 ||
        !errors.every((e) => isRecord(e) && typeof e.message === "string")
      )
        return `error body ${JSON.stringify(a.body)}`;
    }
    return null;
  };
  const expectStatus = (name: string, a: Answer, status: number) => {
    const shape = shapeProblem(a);
    check(name, a.status === status && !shape, `status ${a.status}${shape ? `, ${shape}` : ""}`);
  };

  // Status and test setup: the service key, and nothing without it.
  const key = options.serviceKey;
  expectStatus("status: 200 with the service key", await call("GET", "/status", { key }), 200);
  expectStatus("status: 401 without a service key", await call("GET", "/status"), 401);
  expectStatus(
    "status: 401 with a wrong service key",
    await call("GET", "/status", { key: `${key}-wrong` }),
    401,
  );
  expectStatus("test/setup: 401 without a service key", await call("POST", "/test/setup", { body: {} }), 401);
  expectStatus(
    "test/setup: 401 with a wrong service key",
    await call("POST", "/test/setup", { key: `${key}-wrong`, body: {} }),
    401,
  );
  const setup = await call("POST", "/test/setup", { key, body: {} });
  expectStatus("test/setup: 200 with the service key", setup, 200);
  const data = isRecord(setup.body) && isRecord(setup.body.data) ? setup.body.data : {};
  const token = typeof data.accessToken === "string" ? data.accessToken : "";
  const samples = (isRecord(data.samples) ? data.samples : {}) as Samples;
  check("test/setup: an access token and samples", token !== "" && isRecord(data.samples));
  if (!token) return results;

  // User information.
  const info = await call("GET", "/user/info", { token });
  expectStatus("user/info: 200 with the token", info, 200);
  const who = isRecord(info.body) && isRecord(info.body.data) ? info.body.data : {};
  check(
    "user/info: data.id and data.name",
    typeof who.id === "string" && who.id !== "" && typeof who.name === "string",
    JSON.stringify(info.body),
  );
  expectStatus(
    "user/info: 401 with an invalid token",
    await call("GET", "/user/info", { token: `${token}x` }),
    401,
  );
  expectStatus("user/info: 401 without a token", await call("GET", "/user/info"), 401);

  for (const [slug, fields] of Object.entries(samples.triggers ?? {})) {
    await checkTrigger(slug, fields);
  }
  for (const [slug, byField] of Object.entries(samples.triggerFieldValidations ?? {})) {
    for (const [field, values] of Object.entries(byField)) await checkValidation(slug, field, values);
  }
  for (const [slug, fields] of Object.entries(samples.actions ?? {})) {
    await checkAction(slug, fields, samples.actionRecordSkipping?.[slug]);
  }
  return results;

  async function checkTrigger(slug: string, fields: Record<string, unknown>) {
    const url = `/triggers/${slug}`;
    const identity = `conformance-${slug}-${crypto.randomUUID()}`;
    const request = (extra: Record<string, unknown> = {}) => ({
      trigger_identity: identity,
      triggerFields: fields,
      user: USER,
      ifttt_source: SOURCE,
      ...extra,
    });
    const items = (a: Answer): Record<string, unknown>[] =>
      isRecord(a.body) && Array.isArray(a.body.data) ? a.body.data.filter(isRecord) : [];
    const meta = (item: Record<string, unknown>) => (isRecord(item.meta) ? item.meta : {});

    const plain = await call("POST", url, { token, body: request() });
    expectStatus(`${slug}: 200 with its sample fields`, plain, 200);
    const list = items(plain);
    check(`${slug}: at least 3 items for the samples`, list.length >= 3, `${list.length} items`);
    check(
      `${slug}: at most the default limit (${DEFAULT_LIMIT})`,
      list.length <= DEFAULT_LIMIT,
      `${list.length} items`,
    );
    const ids = list.map((i) => meta(i).id);
    const stamps = list.map((i) => meta(i).timestamp);
    check(
      `${slug}: meta.id is a non-empty string, unique in the list`,
      ids.every((id) => typeof id === "string" && id !== "") && new Set(ids).size === ids.length,
      JSON.stringify(ids),
    );
    const nowS = Date.now() / 1000;
    check(
      `${slug}: meta.timestamp is whole seconds since the epoch`,
      stamps.every(
        (s) => Number.isInteger(s) && (s as number) > 946_684_800 && (s as number) < nowS + 86_400,
      ),
      JSON.stringify(stamps),
    );
    check(
      `${slug}: newest first`,
      stamps.every((s, i) => i === 0 || (s as number) <= (stamps[i - 1] as number)),
      JSON.stringify(stamps),
    );
    const again = items(await call("POST", url, { token, body: request() }));
    check(
      `${slug}: meta.id stable between polls`,
      JSON.stringify(again.map((i) => meta(i).id)) === JSON.stringify(ids),
    );
    const one = await call("POST", url, { token, body: request({ limit: 1 }) });
    expectStatus(`${slug}: 200 with limit 1`, one, 200);
    check(`${slug}: limit 1 gives 1 item`, items(one).length === 1, `${items(one).length} items`);
    check(`${slug}: limit 1 gives the newest`, meta(items(one)[0] ?? {}).id === ids[0]);
    const zero = await call("POST", url, { token, body: request({ limit: 0 }) });
    expectStatus(`${slug}: 200 with limit 0`, zero, 200);
    check(
      `${slug}: limit 0 gives an empty list`,
      isRecord(zero.body) && Array.isArray(zero.body.data) && items(zero).length === 0,
    );
    expectStatus(
      `${slug}: unknown request fields are accepted`,
      await call("POST", url, { token, body: request({ unknown_field: { nested: [1, 2] }, another: "x" }) }),
      200,
    );
    expectStatus(
      `${slug}: 401 with an invalid token`,
      await call("POST", url, { token: `${token}x`, body: request() }),
      401,
    );
    if (Object.keys(fields).length > 0) {
      expectStatus(
        `${slug}: 400 without triggerFields`,
        await call("POST", url, { token, body: { trigger_identity: identity, user: USER, limit: 3 } }),
        400,
      );
    } else {
      expectStatus(
        `${slug}: 200 with empty triggerFields`,
        await call("POST", url, { token, body: request({ triggerFields: {} }) }),
        200,
      );
    }
    for (const [field, value] of Object.entries(fields)) {
      const options = await call("POST", `${url}/fields/${field}/options`, { token, body: { user: USER } });
      if (options.status === 404) continue; // a static field: no options endpoint
      expectStatus(`${slug}.${field}: options answer 200`, options, 200);
      const list = isRecord(options.body) && Array.isArray(options.body.data) ? options.body.data : [];
      const values = list.flatMap((o) =>
        isRecord(o) && Array.isArray(o.values) ? o.values.filter(isRecord) : isRecord(o) ? [o] : [],
      );
      check(
        `${slug}.${field}: options are {label, value}`,
        values.length > 0 && values.every((o) => typeof o.label === "string" && "value" in o),
        JSON.stringify(options.body),
      );
      check(
        `${slug}.${field}: the sample is one of the options`,
        values.some((o) => o.value === value),
      );
    }
    expectStatus(
      `${slug}: DELETE trigger_identity answers 200`,
      await call("DELETE", `${url}/trigger_identity/${identity}`, { token }),
      200,
    );
  }

  async function checkValidation(slug: string, field: string, values: { valid: unknown; invalid: unknown }) {
    const url = `/triggers/${slug}/fields/${field}/validate`;
    const valid = await call("POST", url, { token, body: { value: values.valid, user: USER } });
    expectStatus(`${slug}.${field}: validate answers 200`, valid, 200);
    const v = isRecord(valid.body) && isRecord(valid.body.data) ? valid.body.data : {};
    check(`${slug}.${field}: the valid sample is valid`, v.valid === true, JSON.stringify(valid.body));
    const invalid = await call("POST", url, { token, body: { value: values.invalid, user: USER } });
    const i = isRecord(invalid.body) && isRecord(invalid.body.data) ? invalid.body.data : {};
    check(
      `${slug}.${field}: the invalid sample is invalid, with a message`,
      invalid.status === 200 && i.valid === false && typeof i.message === "string",
      JSON.stringify(invalid.body),
    );
    expectStatus(
      `${slug}.${field}: validate 401 with an invalid token`,
      await call("POST", url, { token: `${token}x`, body: { value: values.valid } }),
      401,
    );
  }

  async function checkAction(
    slug: string,
    fields: Record<string, unknown>,
    skipping?: Record<string, unknown>,
  ) {
    const url = `/actions/${slug}`;
    const request = (actionFields: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
      actionFields,
      user: USER,
      ifttt_source: SOURCE,
      ...extra,
    });
    const ok = await call("POST", url, { token, body: request(fields) });
    expectStatus(`${slug}: 200 with its sample fields`, ok, 200);
    const created = isRecord(ok.body) && Array.isArray(ok.body.data) ? ok.body.data : [];
    check(
      `${slug}: data is [{id}]`,
      created.length === 1 && isRecord(created[0]) && ["string", "number"].includes(typeof created[0].id),
      JSON.stringify(ok.body),
    );
    expectStatus(
      `${slug}: unknown request fields are accepted`,
      await call("POST", url, { token, body: request(fields, { unknown_field: true }) }),
      200,
    );
    expectStatus(
      `${slug}: 401 with an invalid token`,
      await call("POST", url, { token: `${token}x`, body: request(fields) }),
      401,
    );
    expectStatus(
      `${slug}: 400 without actionFields`,
      await call("POST", url, { token, body: { user: USER } }),
      400,
    );
    if (skipping) {
      const skip = await call("POST", url, { token, body: request(skipping) });
      expectStatus(`${slug}: 400 for the skipping sample`, skip, 400);
      const first = isRecord(skip.body) && Array.isArray(skip.body.errors) ? skip.body.errors[0] : undefined;
      check(
        `${slug}: the skipping sample answers status SKIP`,
        isRecord(first) && first.status === "SKIP",
        JSON.stringify(skip.body),
      );
    }
  }
}

// As a command: print each check and exit 1 when any failed.
if (import.meta.main) {
  const baseUrl = process.argv[2];
  const serviceKey = process.env.IFTTT_SERVICE_KEY;
  if (!baseUrl || !serviceKey) {
    process.stderr.write("Usage: IFTTT_SERVICE_KEY=… node ifttt.conformance.ts BASE_URL\n");
    process.exit(2);
  }
  const results = await runIftttConformance({ baseUrl: baseUrl.replace(/\/+$/, ""), serviceKey });
  for (const r of results)
    process.stdout.write(`${r.ok ? "ok  " : "FAIL"} ${r.name}${r.ok ? "" : `: ${r.detail}`}\n`);
  const failed = results.filter((r) => !r.ok).length;
  process.stdout.write(`${results.length - failed} passed, ${failed} failed\n`);
  process.exit(failed ? 1 : 0);
}
