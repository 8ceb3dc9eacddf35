import type { Db } from "../../db/client.ts";
import type { Config } from "../../lib/config.ts";
import { deleteRewardSettings, listReferrers, saveRewardSettings } from "./referral.repo.ts";
import { getRewardRule, type RewardRule } from "./referral.service.ts";

/** The operator's referral commands (`npm run cli -- referral-reward …`), part of the billing CLI. */
export const REFERRAL_USAGE = `referral-reward         the reward in force for a friend's first payment
  referral-reward DAYS [--max N]
                          DAYS free PRO days per paying friend, at most N rewarded friends a person
                          (no --max: no limit); overrides REFERRAL_REWARD_DAYS/_MAX
  referral-reward off     no rewards
  referral-reward reset   back to REFERRAL_REWARD_DAYS and REFERRAL_REWARD_MAX
  referral-list           everyone who referred someone: friends joined, rewarded, days earned`;

export const REFERRAL_COMMANDS = new Set(["referral-reward", "referral-list"]);

type Result = { code: 0 | 1 | 2; out: string };
type RewardConfig = Pick<Config, "REFERRAL_REWARD_DAYS" | "REFERRAL_REWARD_MAX">;

function describeRule(rule: RewardRule): string {
  const from =
    rule.source === "cli" ? "set with referral-reward" : "from REFERRAL_REWARD_DAYS and REFERRAL_REWARD_MAX";
  if (rule.days === 0) return `no referral rewards (${from})`;
  const limit = rule.maxFriends === null ? "no limit" : `at most ${rule.maxFriends} friends a person`;
  return `${rule.days} free PRO days per friend whose first payment is confirmed, ${limit} (${from})`;
}

export async function referralCommand(db: Db, argv: string[], config: RewardConfig): Promise<Result> {
  const [command, ...args] = argv;
  if (command === "referral-list") {
    if (args.length) return { code: 2, out: "referral-list takes no arguments" };
    const rows = await listReferrers(db);
    const lines = rows.map(
      (r) => `${r.email.padEnd(40)} joined ${r.joined}  rewarded ${r.rewarded}  days ${r.days}`,
    );
    return { code: 0, out: lines.join("\n") || "no referrals yet" };
  }
  if (command !== "referral-reward") return { code: 2, out: `unknown command ${command}` };
  const [first, ...rest] = args;
  if (first === undefined) return { code: 0, out: describeRule(await getRewardRule(db, config)) };
  if ((first === "off" || first === "reset") && rest.length === 0) {
    if (first === "off") await saveRewardSettings(db, { rewardDays: 0, maxRewards: null });
    else await deleteRewardSettings(db);
    return { code: 0, out: describeRule(await getRewardRule(db, config)) };
  }
  const days = /^\d{1,4}$/.test(first) ? Number(first) : Number.NaN;
  const maxFlag = rest[0] === "--max" && rest.length === 2 ? rest[1] : undefined;
  const max = maxFlag !== undefined && /^\d{1,6}$/.test(maxFlag) ? Number(maxFlag) : Number.NaN;
  if (!(days >= 1 && days <= 3660) || (rest.length > 0 && !(max >= 1)))
    return {
      code: 2,
      out: "referral-reward DAYS [--max N]: DAYS 1-3660, N a whole number from 1; or off, or reset",
    };
  await saveRewardSettings(db, { rewardDays: days, maxRewards: rest.length ? max : null });
  return { code: 0, out: describeRule(await getRewardRule(db, config)) };
}
