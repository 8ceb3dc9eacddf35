import type { ConnectorProvider } from "@tonus/contract";

/**
 * The stand-ins' data, written by hand in each provider's documented response format (field names,
 * nesting, units, paging), for a few days ending yesterday (UTC). Each day `i` (0 = oldest) has the same
 * shape of records so tests can predict what Tonus stores; a few records are there to be skipped or
 * refused (a deleted Oura period, a pending WHOOP score, a Withings measure of someone else, an
 * implausible heart rate, a malformed sample).
 */

export type FixtureDay = { day: string; prev: string; i: number };
export type Fixture = { provider: ConnectorProvider; days: FixtureDay[]; pageSize: number };

export type DataRoute = {
  method: string;
  match: (path: string, body: string) => boolean;
  answer: (url: URL, form: URLSearchParams, body: string) => { status: number; body?: unknown };
};

const DAY_MS = 86_400_000;
const dayAt = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export function fixtureDays(n: number, now = Date.now()): FixtureDay[] {
  const today = Date.parse(`${dayAt(now)}T00:00:00Z`);
  return Array.from({ length: n }, (_, i) => {
    const ms = today - (n - i) * DAY_MS;
    return { day: dayAt(ms), prev: dayAt(ms - DAY_MS), i };
  });
}

const epoch = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/** One page of `items` from the offset in `token` (a decimal string), and the token of the next. */
function page<T>(items: T[], token: string | null, size: number): { items: T[]; next: string | null } {
  const offset = token ? Number(token) : 0;
  const slice = items.slice(offset, offset + size);
  return { items: slice, next: offset + size < items.length ? String(offset + size) : null };
}

const inDays = (day: string, start: string | null, end: string | null) =>
  (!start || day >= start) && (!end || day <= end);

function oura(f: Fixture): DataRoute[] {
  const sleep = f.days.flatMap(({ day, prev, i }) => [
    {
      id: `sleep-${day}`,
      day,
      type: "long_sleep",
      bedtime_start: `${prev}T23:00:00+00:00`,
      bedtime_end: `${day}T07:00:00+00:00`,
      total_sleep_duration: 25_200 + i * 600,
      average_hrv: 40 + i,
      average_heart_rate: 55.5,
      lowest_heart_rate: 50 + i,
      average_breath: 14.5,
      efficiency: 88,
      time_in_bed: 28_800,
      low_battery_alert: false,
      period: 0,
    },
    // A nap: counts toward the day's sleep, gives no resting heart rate.
    ...(i === 1
      ? [
          {
            id: `nap-${day}`,
            day,
            type: "sleep",
            bedtime_start: `${day}T14:00:00+00:00`,
            bedtime_end: `${day}T14:30:00+00:00`,
            total_sleep_duration: 1200,
            average_hrv: null,
            lowest_heart_rate: 60,
            average_breath: 15,
            time_in_bed: 1800,
            low_battery_alert: false,
            period: 1,
          },
        ]
      : []),
    // A rest period is not sleep.
    ...(i === 0
      ? [
          {
            id: `rest-${day}`,
            day,
            type: "rest",
            bedtime_start: `${day}T15:00:00+00:00`,
            bedtime_end: `${day}T15:20:00+00:00`,
            total_sleep_duration: 900,
            time_in_bed: 1200,
            low_battery_alert: false,
            period: 2,
          },
        ]
      : []),
  ]);
  const activity = f.days.map(({ day, i }) => ({
    id: `activity-${day}`,
    day,
    steps: 8000 + i * 100,
    active_calories: 400 + i * 10,
    total_calories: 2400,
    timestamp: `${day}T04:00:00+00:00`,
  }));
  const spo2 = f.days.map(({ day, i }) => ({
    id: `spo2-${day}`,
    day,
    spo2_percentage: i === 0 ? null : { average: 96.5 },
    breathing_disturbance_index: 3,
  }));
  const heartrate = f.days.flatMap(({ day, i }) => [
    ...Array.from({ length: 4 }, (_, k) => ({
      bpm: 60 + k + i,
      source: "awake",
      timestamp: `${day}T12:${String(k * 5).padStart(2, "0")}:00+00:00`,
    })),
    // Implausible (a sensor glitch) and malformed: refused, with their reasons.
    ...(i === 0
      ? [
          { bpm: 400, source: "awake", timestamp: `${day}T13:00:00+00:00` },
          { bpm: "n/a", source: "awake", timestamp: `${day}T13:05:00+00:00` },
        ]
      : []),
  ]);
  const byDays =
    <T extends { day: string }>(items: T[]) =>
    (url: URL) => {
      const q = url.searchParams;
      const { items: data, next } = page(
        items.filter((r) => inDays(r.day, q.get("start_date"), q.get("end_date"))),
        q.get("next_token"),
        f.pageSize,
      );
      return { status: 200, body: { data, next_token: next } };
    };
  return [
    { method: "GET", match: (p) => p === "/v2/usercollection/sleep", answer: byDays(sleep) },
    { method: "GET", match: (p) => p === "/v2/usercollection/daily_activity", answer: byDays(activity) },
    { method: "GET", match: (p) => p === "/v2/usercollection/daily_spo2", answer: byDays(spo2) },
    {
      method: "GET",
      match: (p) => p === "/v2/usercollection/heartrate",
      answer: (url) => {
        const q = url.searchParams;
        const from = Date.parse(q.get("start_datetime") ?? "");
        const to = Date.parse(q.get("end_datetime") ?? "");
        const within = heartrate.filter(
          (r) => Date.parse(r.timestamp) >= from && Date.parse(r.timestamp) <= to,
        );
        const { items: data, next } = page(within, q.get("next_token"), f.pageSize * 4);
        return { status: 200, body: { data, next_token: next } };
      },
    },
  ];
}

function whoop(f: Fixture): DataRoute[] {
  const recovery = f.days.flatMap(({ day, i }) => [
    {
      cycle_id: 93_845 + i,
      sleep_id: `ecfc6a15-4661-442f-a9a4-f160dd7afae${i}`,
      user_id: 10_129,
      created_at: `${day}T07:30:00.000Z`,
      updated_at: `${day}T07:31:00.000Z`,
      score_state: "SCORED",
      score: {
        user_calibrating: false,
        recovery_score: 44 + i,
        resting_heart_rate: 52 + i,
        hrv_rmssd_milli: 48.5,
        spo2_percentage: 95.5,
        skin_temp_celsius: 33.7,
      },
    },
    ...(i === f.days.length - 1
      ? [
          {
            cycle_id: 99_999,
            sleep_id: "0b7d1a2e-0000-4000-8000-00000000ffff",
            user_id: 10_129,
            created_at: `${day}T11:00:00.000Z`,
            updated_at: `${day}T11:00:00.000Z`,
            score_state: "PENDING_SCORE",
          },
        ]
      : []),
  ]);
  const sleep = f.days.map(({ day, prev, i }) => ({
    id: `ecfc6a15-4661-442f-a9a4-f160dd7afae${i}`,
    cycle_id: 93_845 + i,
    user_id: 10_129,
    created_at: `${day}T07:05:00.000Z`,
    updated_at: `${day}T07:06:00.000Z`,
    start: `${prev}T23:00:00.000Z`,
    end: `${day}T07:00:00.000Z`,
    timezone_offset: "+00:00",
    nap: false,
    score_state: "SCORED",
    score: {
      stage_summary: {
        total_in_bed_time_milli: 28_800_000,
        total_awake_time_milli: 1_800_000,
        total_no_data_time_milli: 0,
        total_light_sleep_time_milli: 14_400_000,
        total_slow_wave_sleep_time_milli: 6_000_000,
        total_rem_sleep_time_milli: 6_600_000,
        sleep_cycle_count: 4,
        disturbance_count: 3,
      },
      sleep_needed: {
        baseline_milli: 27_000_000,
        need_from_sleep_debt_milli: 0,
        need_from_recent_strain_milli: 0,
        need_from_recent_nap_milli: 0,
      },
      respiratory_rate: 16.1,
      sleep_performance_percentage: 98,
      sleep_consistency_percentage: 90,
      sleep_efficiency_percentage: 91.7,
    },
  }));
  const byStart =
    <T>(items: T[], time: (r: T) => string) =>
    (url: URL) => {
      const q = url.searchParams;
      const from = Date.parse(q.get("start") ?? "1970-01-01T00:00:00Z");
      const to = Date.parse(q.get("end") ?? "2999-01-01T00:00:00Z");
      const limit = Math.min(Number(q.get("limit") ?? 10), 25);
      const within = items.filter((r) => Date.parse(time(r)) >= from && Date.parse(time(r)) < to);
      const { items: records, next } = page(within, q.get("nextToken"), Math.min(limit, f.pageSize));
      return { status: 200, body: { records, next_token: next } };
    };
  return [
    {
      method: "GET",
      match: (p) => p === "/developer/v2/recovery",
      answer: byStart(recovery, (r) => r.created_at),
    },
    {
      method: "GET",
      match: (p) => p === "/developer/v2/activity/sleep",
      answer: byStart(sleep, (r) => r.start),
    },
  ];
}

function withings(f: Fixture): DataRoute[] {
  const groups = f.days.flatMap(({ day, i }) => [
    {
      grpid: 100 + i,
      attrib: 0,
      date: epoch(`${day}T07:00:00Z`),
      created: epoch(`${day}T07:00:05Z`),
      modified: epoch(`${day}T07:00:05Z`),
      category: 1,
      deviceid: "892359876fd8805ac45bab078c4828692f0276b1",
      measures: [
        { value: 72_500 + i * 100, type: 1, unit: -3, algo: 0, fm: 131 },
        { value: 215, type: 6, unit: -1, algo: 0, fm: 131 },
        { value: 15_600, type: 8, unit: -3, algo: 0, fm: 131 },
        { value: 54_100, type: 76, unit: -3, algo: 0, fm: 131 },
        { value: 2_900, type: 88, unit: -3, algo: 0, fm: 131 },
      ],
      comment: null,
    },
    // A ScanWatch spot check: heart rate and SpO2, no blood pressure.
    {
      grpid: 400 + i,
      attrib: 0,
      date: epoch(`${day}T10:00:00Z`),
      created: epoch(`${day}T10:00:05Z`),
      modified: epoch(`${day}T10:00:05Z`),
      category: 1,
      deviceid: "a7f5c1e0b2d94e31c6f8e2b4d0c9a6e1f3b5d7c9",
      measures: [
        { value: 62, type: 11, unit: 0 },
        { value: 97, type: 54, unit: 0 },
      ],
      comment: null,
    },
    {
      grpid: 200 + i,
      attrib: 0,
      date: epoch(`${day}T08:00:00Z`),
      created: epoch(`${day}T08:00:05Z`),
      modified: epoch(`${day}T08:00:05Z`),
      category: 1,
      deviceid: "4bd43c3ad4a1b7c0f5b5ab2a0d42b5ff3e4dcc2e",
      measures: [
        { value: 120 + i, type: 10, unit: 0 },
        { value: 80, type: 9, unit: 0 },
        { value: 65, type: 11, unit: 0 },
      ],
      comment: null,
    },
    // Someone else stepped on the scale: Withings could not attribute it (attrib 1).
    ...(i === 0
      ? [
          {
            grpid: 900,
            attrib: 1,
            date: epoch(`${day}T09:00:00Z`),
            created: epoch(`${day}T09:00:05Z`),
            modified: epoch(`${day}T09:00:05Z`),
            category: 1,
            measures: [{ value: 95_000, type: 1, unit: -3 }],
          },
        ]
      : []),
  ]);
  const activities = f.days.map(({ day, i }) => ({
    date: day,
    timezone: "UTC",
    deviceid: null,
    brand: 18,
    is_tracker: true,
    steps: 9000 + i,
    distance: 6500,
    calories: 350.5 + i,
    totalcalories: 2200,
    modified: epoch(`${day}T20:00:00Z`),
  }));
  const series = f.days.map(({ day, prev, i }) => ({
    id: 300 + i,
    timezone: "UTC",
    model: 32,
    model_id: 63,
    startdate: epoch(`${prev}T23:00:00Z`),
    enddate: epoch(`${day}T06:30:00Z`),
    date: day,
    created: epoch(`${day}T06:40:00Z`),
    modified: epoch(`${day}T06:40:00Z`),
    data: { total_sleep_time: 27_000 - i * 60, rr_average: 15, hr_average: 58 },
  }));
  const action = (body: string) => new URLSearchParams(body).get("action");
  /** Getmeas, Getactivity and Getsummary: a date range or `lastupdate`, `more`/`offset` paging. */
  const answer =
    <T extends { modified: number }>(
      items: T[],
      key: string,
      inRange: (r: T, form: URLSearchParams) => boolean,
    ) =>
    (_url: URL, form: URLSearchParams) => {
      const last = form.get("lastupdate");
      const within = items.filter((r) => (last ? r.modified > Number(last) : inRange(r, form)));
      const offset = Number(form.get("offset") ?? 0);
      const slice = within.slice(offset, offset + f.pageSize);
      const more = offset + f.pageSize < within.length;
      return {
        status: 200,
        body: {
          status: 0,
          body: {
            [key]: slice,
            more,
            offset: more ? offset + f.pageSize : 0,
            updatetime: Math.floor(Date.now() / 1000),
            timezone: "UTC",
          },
        },
      };
    };
  const dayIn = (day: string, form: URLSearchParams) =>
    inDays(day, form.get("startdateymd"), form.get("enddateymd"));
  return [
    {
      method: "POST",
      match: (p, body) => p === "/measure" && action(body) === "getmeas",
      answer: answer(
        groups,
        "measuregrps",
        (g, form) =>
          g.date >= Number(form.get("startdate") ?? 0) && g.date <= Number(form.get("enddate") ?? 9e12),
      ),
    },
    {
      method: "POST",
      match: (p, body) => p === "/v2/measure" && action(body) === "getactivity",
      answer: answer(activities, "activities", (a, form) => dayIn(a.date, form)),
    },
    {
      method: "POST",
      match: (p, body) => p === "/v2/sleep" && action(body) === "getsummary",
      answer: answer(series, "series", (s, form) => dayIn(s.date, form)),
    },
  ];
}

function polar(f: Fixture, base: () => string): DataRoute[] {
  const user = () => `${base()}/v3/users/4711`;
  const nights = () =>
    f.days.map(({ day, prev, i }) => ({
      polar_user: `${base()}/v3/users/4711`,
      date: day,
      sleep_start_time: `${prev}T23:10:00+00:00`,
      sleep_end_time: `${day}T06:58:00+00:00`,
      device_id: "1111AAAA",
      continuity: 3.1,
      continuity_class: 3,
      light_sleep: 15_000 + i * 60,
      deep_sleep: 5400,
      rem_sleep: 6000,
      unrecognized_sleep_stage: 600,
      sleep_score: 80,
      total_interruption_duration: 900,
      sleep_charge: 3,
      sleep_goal: 28_800,
      sleep_rating: 3,
      short_interruption_duration: 500,
      long_interruption_duration: 400,
      sleep_cycles: 5,
      group_duration_score: 80,
      group_solidity_score: 75,
      group_regeneration_score: 70,
    }));
  const recharges = () =>
    f.days.map(({ day, i }) => ({
      polar_user: `${base()}/v3/users/4711`,
      date: day,
      heart_rate_avg: 55,
      beat_to_beat_avg: 1090,
      heart_rate_variability_avg: 42 + i,
      breathing_rate_avg: 14.2,
      nightly_recharge_status: 3,
      ans_charge: 2.5,
      ans_charge_status: 3,
    }));
  let registered = false;
  // Summaries not yet committed; one transaction at a time, as Polar documents.
  let pending = f.days.map(({ day, i }) => ({ id: 1000 + i, date: day }));
  let open: { id: number; ids: number[] } | null = null;
  let nextTransaction = 99;
  return [
    {
      method: "POST",
      match: (p) => p === "/v3/users",
      answer: (_u, _f, body) => {
        const memberId = (JSON.parse(body || "{}") as { "member-id"?: string })["member-id"];
        if (!memberId) return { status: 400, body: { message: "member-id missing" } };
        if (registered) return { status: 409, body: { message: "User already registered" } };
        registered = true;
        return {
          status: 200,
          body: {
            "polar-user-id": 4711,
            "member-id": memberId,
            "registration-date": new Date().toISOString(),
          },
        };
      },
    },
    {
      method: "GET",
      match: (p) => p === "/v3/users/sleep",
      answer: () => ({ status: 200, body: { nights: nights() } }),
    },
    {
      method: "GET",
      match: (p) => p === "/v3/users/nightly-recharge",
      answer: () => ({ status: 200, body: { recharges: recharges() } }),
    },
    {
      method: "POST",
      match: (p) => p === "/v3/users/4711/activity-transactions",
      answer: () => {
        if (!open && pending.length === 0) return { status: 204 };
        open ??= { id: nextTransaction++, ids: pending.map((a) => a.id) };
        return {
          status: 201,
          body: { "transaction-id": open.id, "resource-uri": `${user()}/activity-transactions/${open.id}` },
        };
      },
    },
    {
      method: "GET",
      match: (p) => /^\/v3\/users\/4711\/activity-transactions\/\d+$/.test(p),
      answer: (url) => {
        const id = Number(url.pathname.split("/").pop());
        if (!open || open.id !== id) return { status: 404 };
        return {
          status: 200,
          body: {
            "activity-log": open.ids.map((a) => `${user()}/activity-transactions/${id}/activities/${a}`),
          },
        };
      },
    },
    {
      method: "GET",
      match: (p) => /^\/v3\/users\/4711\/activity-transactions\/\d+\/activities\/\d+$/.test(p),
      answer: (url) => {
        const id = Number(url.pathname.split("/").pop());
        const a = pending.find((x) => x.id === id);
        if (!a) return { status: 404 };
        const i = a.id - 1000;
        return {
          status: 200,
          body: {
            id: a.id,
            "polar-user": user(),
            "transaction-id": open?.id,
            date: a.date,
            created: `${a.date}T23:59:00.000Z`,
            calories: 2300,
            "active-calories": 600 + i,
            duration: "PT15H",
            "active-steps": 9500 + i,
          },
        };
      },
    },
    {
      method: "PUT",
      match: (p) => /^\/v3\/users\/4711\/activity-transactions\/\d+$/.test(p),
      answer: (url) => {
        const id = Number(url.pathname.split("/").pop());
        if (!open || open.id !== id) return { status: 404 };
        const done = new Set(open.ids);
        pending = pending.filter((a) => !done.has(a.id));
        open = null;
        return { status: 200 };
      },
    },
  ];
}

function fitbit(f: Fixture): DataRoute[] {
  const range = (path: string, re: RegExp) => {
    const m = re.exec(path);
    return m ? { start: m[1] ?? "", end: m[2] ?? "" } : null;
  };
  const days = (r: { start: string; end: string }) => f.days.filter((d) => inDays(d.day, r.start, r.end));
  const route = (re: RegExp, build: (d: ReturnType<typeof days>) => unknown): DataRoute => ({
    method: "GET",
    match: (p) => re.test(p),
    answer: (url) => {
      const r = range(url.pathname, re);
      if (!r || r.start > r.end) return { status: 400, body: { errors: [{ errorType: "validation" }] } };
      return { status: 200, body: build(days(r)) };
    },
  });
  const D = "(\\d{4}-\\d{2}-\\d{2})";
  return [
    route(new RegExp(`^/1/user/-/activities/steps/date/${D}/${D}\\.json$`), (ds) => ({
      "activities-steps": ds.map((d) => ({ dateTime: d.day, value: String(8123 + d.i) })),
    })),
    route(new RegExp(`^/1/user/-/activities/activityCalories/date/${D}/${D}\\.json$`), (ds) => ({
      "activities-activityCalories": ds.map((d) => ({ dateTime: d.day, value: String(500 + d.i) })),
    })),
    route(new RegExp(`^/1/user/-/activities/heart/date/${D}/${D}\\.json$`), (ds) => ({
      "activities-heart": ds.map((d) => ({
        dateTime: d.day,
        value: {
          customHeartRateZones: [],
          heartRateZones: [{ caloriesOut: 1200.5, max: 94, min: 30, minutes: 1200, name: "Out of Range" }],
          restingHeartRate: 58 + d.i,
        },
      })),
    })),
    route(new RegExp(`^/1/user/-/hrv/date/${D}/${D}\\.json$`), (ds) => ({
      hrv: ds.map((d) => ({ value: { dailyRmssd: 34.938 + d.i, deepRmssd: 31.567 }, dateTime: d.day })),
    })),
    route(new RegExp(`^/1/user/-/spo2/date/${D}/${D}\\.json$`), (ds) =>
      ds.map((d) => ({ dateTime: d.day, value: { avg: 97.5, min: 94, max: 100 } })),
    ),
    route(new RegExp(`^/1/user/-/br/date/${D}/${D}\\.json$`), (ds) => ({
      br: ds.map((d) => ({ value: { breathingRate: 17.8 }, dateTime: d.day })),
    })),
    route(new RegExp(`^/1\\.2/user/-/sleep/date/${D}/${D}\\.json$`), (ds) => ({
      sleep: ds.map((d) => ({
        dateOfSleep: d.day,
        duration: 27_720_000,
        efficiency: 93,
        endTime: `${d.day}T06:45:30.000`,
        infoCode: 0,
        isMainSleep: true,
        logId: 26_013_218_219 + d.i,
        minutesAfterWakeup: 0,
        minutesAsleep: 420 + d.i,
        minutesAwake: 42,
        minutesToFallAsleep: 0,
        startTime: `${d.prev}T23:03:30.000`,
        timeInBed: 462,
        type: "stages",
      })),
      summary: { totalMinutesAsleep: 420, totalSleepRecords: ds.length, totalTimeInBed: 462 },
    })),
    route(new RegExp(`^/1/user/-/body/log/weight/date/${D}/${D}\\.json$`), (ds) => ({
      weight: ds.map((d) => ({
        bmi: 23.5,
        date: d.day,
        fat: 18.5,
        logId: 1_553_067_494_000 + d.i,
        source: "Aria",
        time: "07:15:00",
        weight: 71.4 + d.i / 10,
      })),
    })),
  ];
}

function googleHealth(f: Fixture): DataRoute[] {
  const steps = f.days.flatMap(({ day }) =>
    [10, 11, 18].map((h, k) => ({
      name: `users/me/dataTypes/steps/dataPoints/${day}-${h}`,
      dataSource: { recordingMethod: "PASSIVELY_MEASURED", platform: "FITBIT" },
      steps: {
        interval: {
          startTime: `${day}T${h}:00:00Z`,
          startUtcOffset: "0s",
          endTime: `${day}T${h}:01:00Z`,
          endUtcOffset: "0s",
        },
        count: String(100 + k * 20),
      },
    })),
  );
  const resting = f.days.map(({ day, i }) => {
    const [year, month, d] = day.split("-").map(Number);
    return {
      dataSource: { platform: "FITBIT" },
      dailyRestingHeartRate: { date: { year, month, day: d }, beatsPerMinute: String(57 + i) },
    };
  });
  return [
    {
      method: "GET",
      match: (p) => p === "/v4/users/me/dataTypes/steps/dataPoints",
      answer: (url) => {
        const filter = url.searchParams.get("filter") ?? "";
        const from = Date.parse(/start_time >= "([^"]+)"/.exec(filter)?.[1] ?? "");
        const to = Date.parse(/start_time < "([^"]+)"/.exec(filter)?.[1] ?? "");
        if (Number.isNaN(from) || Number.isNaN(to))
          return { status: 400, body: { error: { code: 400, status: "INVALID_ARGUMENT" } } };
        const within = steps.filter(
          (s) =>
            Date.parse(s.steps.interval.startTime) >= from && Date.parse(s.steps.interval.startTime) < to,
        );
        const { items, next } = page(within, url.searchParams.get("pageToken"), f.pageSize * 2);
        return { status: 200, body: { dataPoints: items, ...(next ? { nextPageToken: next } : {}) } };
      },
    },
    {
      method: "GET",
      match: (p) => p === "/v4/users/me/dataTypes/daily-resting-heart-rate/dataPoints",
      answer: (url) => {
        const { items, next } = page(resting, url.searchParams.get("pageToken"), f.pageSize);
        return { status: 200, body: { dataPoints: items, ...(next ? { nextPageToken: next } : {}) } };
      },
    },
  ];
}

export function dataRoutes(f: Fixture, base: () => string): DataRoute[] {
  switch (f.provider) {
    case "oura":
      return oura(f);
    case "whoop":
      return whoop(f);
    case "withings":
      return withings(f);
    case "polar":
      return polar(f, base);
    case "fitbit":
      return fitbit(f);
    case "google_health":
      return googleHealth(f);
  }
}
