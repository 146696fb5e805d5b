import type { Db } from "../db/client";
import type { D1Meter } from "../db/metered-d1";
import type { OrganizationWithNetwork } from "../db/organizations";
import type { SubOrganization } from "../db/schema";
import type { Config } from "../config";
import type { Env } from "../env";
import type { ErrorStyle } from "./errors";

export interface AuthContext {
  org: OrganizationWithNetwork;
  /** Set when the request carries X-Service-MMI-Key. */
  subOrg: SubOrganization | null;
}

export interface AppVariables {
  db: Db;
  meter: D1Meter;
  config: Config;
  errorStyle: ErrorStyle;
  /** Origin written into API URLs in responses. */
  baseUrl: string;
  /** Origin written into static file and thumbnail URLs. */
  staticUrl: string;
  auth: AuthContext;
}

export type AppEnv = { Bindings: Env; Variables: AppVariables };
