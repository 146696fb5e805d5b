// The device type of a statistics row (spec 2.5: Mobile, Desktop, Tablet, TV, Other). Players
// may report it; otherwise it is derived from the User-Agent with bowser (MIT, no dependencies,
// plain JavaScript: runs in workerd).
import Bowser from "bowser";
import { DEVICE_TYPES, type DeviceType, NONE } from "./counters";

const BY_PLATFORM: Record<string, DeviceType> = {
  mobile: "Mobile",
  tablet: "Tablet",
  desktop: "Desktop",
  tv: "TV",
};

/** Device type of a User-Agent: unrecognized platforms (bots, tools) are Other; no User-Agent is 'none'. */
export function deviceTypeOfUserAgent(
  userAgent: string | null | undefined,
): DeviceType | typeof NONE {
  if (!userAgent) return NONE;
  try {
    const type = Bowser.parse(userAgent).platform.type;
    return (type ? BY_PLATFORM[type] : undefined) ?? "Other";
  } catch {
    return "Other";
  }
}

const CANONICAL = new Map<string, DeviceType>(DEVICE_TYPES.map((t) => [t.toLowerCase(), t]));

/** A reported device type in any letter case → the spec's spelling; null when it is none of them. */
export function canonicalDeviceType(value: string): DeviceType | null {
  return CANONICAL.get(value.toLowerCase()) ?? null;
}
