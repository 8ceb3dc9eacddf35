// A PostgreSQL database of one's own for a test or a benchmark: dropped (its connections closed) and
// created again next to the database of `url`, with the same role.

/** Drops and creates the database `<url's database>_<suffix>`; answers its URL. */
export async function recreateDatabase(url: string, suffix: string): Promise<string> {
  const base = new URL(url);
  const name = `${base.pathname.slice(1) || "tonus"}_${suffix}`;
  const pg = await import("pg");
  const admin = new pg.default.Client({ connectionString: base.toString() });
  await admin.connect();
  try {
    await admin.query(`drop database if exists "${name}" with (force)`);
    await admin.query(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  base.pathname = `/${name}`;
  return base.toString();
}
