// oidc-provider ships no types; the social sign-in tests use this much of it.
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  type Account = { accountId: string; claims: () => Promise<Record<string, unknown>> };
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
  export type FindAccount = (ctx: unknown, id: string) => Promise<Account | undefined>;
}
