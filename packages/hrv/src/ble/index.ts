export type {
  BleIssue,
  BleIssueCode,
  HeartRateMeasurement,
  SensorContact,
} from "./heart-rate-measurement.ts";
export { parseHeartRateMeasurement, RR_UNIT_MS, rr1024ToMs } from "./heart-rate-measurement.ts";
