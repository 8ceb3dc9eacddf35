export * from "./academy.ts";
export * from "./auth.ts";
export * from "./common.ts";
export * from "./errors.ts";
export * from "./paths.ts";
export * from "./profile.ts";
export * from "./shares.ts";
