import { takeDirectLoginParamsFromLocation } from "../features/auth/direct-login-params.ts";

// Imported first by main.tsx: credentials leave the address bar before the router or any script reads it.
takeDirectLoginParamsFromLocation();
