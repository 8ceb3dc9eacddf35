import {
  INGEST_DEFAULT_SOURCE,
  INGEST_LIMITS,
  type IngestBpReading,
  type IngestRecord,
  type IngestRecordResult,
  IngestRecordSchema,
  type IngestResponse,
  type IngestRrMeasurement,
  type IngestSample,
} from "@tonus/contract";
import type { z } from "zod";
import type { Db } from "../../db/client.ts";
import { AppError } from "../../lib/app-error.ts";
import type { AppContext } from "../../lib/context.ts";
import { createReading } from "../bp/bp.service.ts";
import { recordValues } from "../dashboard-values/dashboard-values.service.ts";
import { storeMeasurement } from "../measurements/measurements.service.ts";

type Ctx = Pick<AppContext, "config" | "database" | "services">;
type Issue = { path: string; message: string };
type Parsed<T> = { index: number; record: T };

const EARLIEST_MS = Date.parse(INGEST_LIMITS.earliest);

function clientIdOf(raw: unknown): string | null {
  const id = (raw as { client_id?: unknown } | null)?.client_id;
  return typeof id === "string" ? id.slice(0, 100) : null;
}

function rejected(index: number, clientId: string | null, error: AppError): IngestRecordResult {
  const issues = error.details?.issues as Issue[] | undefined;
  return {
    index,
    client_id: clientId,
    status: "rejected",
    code: error.code,
    error: error.message,
    ...(issues ? { issues } : {}),
  };
}

function invalid(issues: Issue[]): AppError {
  return new AppError("validation_failed", issues.map((i) => `${i.path}: ${i.message}`).join("; "), {
    issues,
  });
}

const zodIssues = (error: z.ZodError): Issue[] =>
  error.issues.map((i) => ({ path: i.path.join(".") || "record", message: i.message }));

/** A sample's or reading's time must lie after 2000 and at most 24 hours ahead (RELIABILITY F10). */
function timeIssue(record: IngestRecord, now: Date): Issue | null {
  if (record.type === "rr_measurement") return null; // the measurements service checks its own
  const path = record.type === "sample" ? "at" : "measured_at";
  const ms = Date.parse(record.type === "sample" ? record.at : record.measured_at);
  if (ms > now.getTime() + INGEST_LIMITS.maxFutureMs)
    return { path, message: "More than 24 hours in the future" };
  if (ms < EARLIEST_MS) return { path, message: "Before 2000-01-01" };
  return null;
}

/** Runs one record's writes in a savepoint: a refused record rolls back alone; the batch goes on. */
async function inSavepoint(
  tx: Db,
  index: number,
  clientId: string,
  work: (sp: Db) => Promise<IngestRecordResult>,
): Promise<IngestRecordResult> {
  try {
    return await tx.transaction(async (sp) => work(sp as unknown as Db));
  } catch (error) {
    // Anything but a refusal (a lost connection, a bug) fails the batch: the client sends it again.
    if (error instanceof AppError && error.status < 500) return rejected(index, clientId, error);
    throw error;
  }
}

const sameReading = (
  stored: { systolic: number; diastolic: number; pulse: number | null; measured_at: string },
  input: IngestBpReading,
) =>
  stored.systolic === input.systolic &&
  stored.diastolic === input.diastolic &&
  stored.pulse === (input.pulse ?? null) &&
  Date.parse(stored.measured_at) === Date.parse(input.measured_at);

async function storeReading(ctx: Ctx, tx: Db, userId: string, { index, record }: Parsed<IngestBpReading>) {
  return inSavepoint(tx, index, record.client_id, async (sp) => {
    const { type: _type, ...input } = record;
    const { reading, created } = await createReading(ctx, userId, input, sp);
    if (!created && !sameReading(reading, record))
      throw new AppError("conflict", "This client_id already names another blood-pressure reading");
    const status = created ? "created" : "duplicate";
    return { index, client_id: record.client_id, status, id: reading.id } satisfies IngestRecordResult;
  });
}

async function storeRr(
  ctx: Ctx,
  tx: Db,
  userId: string,
  now: Date,
  { index, record }: Parsed<IngestRrMeasurement>,
) {
  return inSavepoint(tx, index, record.client_id, async (sp) => {
    const { type: _type, ...input } = record;
    const { row, created } = await storeMeasurement(ctx, sp, userId, input, now);
    const status = created ? "created" : "duplicate";
    return { index, client_id: record.client_id, status, id: row.id } satisfies IngestRecordResult;
  });
}

/**
 * Samples go to the dashboard in one write. The same (source, client_id) twice in one batch is stored
 * once; twice with different contents is a conflict for the later one.
 */
async function storeSamples(tx: Db, userId: string, samples: Parsed<IngestSample>[]) {
  const results: IngestRecordResult[] = [];
  const seen = new Map<string, IngestSample>();
  const values = [];
  for (const { index, record } of samples) {
    const source = record.source ?? INGEST_DEFAULT_SOURCE;
    const id = `${source}\n${record.client_id}`;
    const first = seen.get(id);
    const ok = { index, client_id: record.client_id, status: "stored" } as const;
    if (first) {
      const same =
        first.metric === record.metric &&
        first.value === record.value &&
        Date.parse(first.at) === Date.parse(record.at);
      results.push(
        same
          ? ok
          : rejected(
              index,
              record.client_id,
              new AppError("conflict", "This client_id appears twice with different values"),
            ),
      );
      continue;
    }
    seen.set(id, record);
    values.push({
      metric: record.metric,
      at: new Date(record.at),
      value: record.value,
      source,
      clientId: record.client_id,
    });
    results.push(ok);
  }
  await recordValues(tx, userId, values);
  return results;
}

/**
 * Stores one batch in the caller's transaction, record by record: each record is checked against the
 * contract on its own; readings go first (so a measurement in the same batch finds its nearby
 * reading), then RR measurements (analysed by the measurements service), then the samples through the
 * dashboard's `recordValues`. Every record is idempotent by its client_id, so a batch sent again stores
 * nothing new. Returns one result per record, in the batch's order.
 */
export async function ingestBatch(
  ctx: Ctx,
  tx: Db,
  userId: string,
  records: readonly unknown[],
  now = new Date(),
): Promise<IngestResponse> {
  const results: IngestRecordResult[] = [];
  const readings: Parsed<IngestBpReading>[] = [];
  const measurements: Parsed<IngestRrMeasurement>[] = [];
  const samples: Parsed<IngestSample>[] = [];
  records.forEach((raw, index) => {
    const parsed = IngestRecordSchema.safeParse(raw);
    if (!parsed.success) {
      results.push(rejected(index, clientIdOf(raw), invalid(zodIssues(parsed.error))));
      return;
    }
    const record = parsed.data;
    const late = timeIssue(record, now);
    if (late) results.push(rejected(index, record.client_id, invalid([late])));
    else if (record.type === "bp_reading") readings.push({ index, record });
    else if (record.type === "rr_measurement") measurements.push({ index, record });
    else samples.push({ index, record });
  });
  // One after another: a transaction is one connection.
  for (const reading of readings) results.push(await storeReading(ctx, tx, userId, reading));
  for (const measurement of measurements) results.push(await storeRr(ctx, tx, userId, now, measurement));
  results.push(...(await storeSamples(tx, userId, samples)));
  results.sort((a, b) => a.index - b.index);
  const rejectedCount = results.filter((r) => r.status === "rejected").length;
  return { accepted: results.length - rejectedCount, rejected: rejectedCount, results };
}
