// Operator API (Authorization: Bearer ADMIN_TOKEN): organizations, plans, entitlements,
// networks, sub-organizations and credentials. Secrets appear only in the response that
// creates or rotates them.
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { generateCredentials, randomAlphanumeric, sha256Hex } from "../domain/credentials";
import {
  ensureNetwork,
  findOrganizationByKey,
  insertOrganization,
  insertSubOrganization,
  listOrganizations,
  listSubOrganizations,
  replaceCredentials,
  updateOrganization,
  deleteOrganization,
  type OrganizationWithNetwork,
} from "../db/organizations";
import { contentObjectKeys } from "../db/content";
import { listFeeds } from "../db/feeds";
import { removeFeedFiles } from "../domain/feed-publisher";
import { orgFeedListKey } from "../storage/layout";
import { isUniqueViolation } from "../db/client";
import { ENTITLEMENTS, PLANS } from "../db/schema";
import type { AppEnv } from "../http/context";
import { badRequest, notFound } from "../http/errors";
import { validationHook } from "../http/validation";
import { requireAdmin } from "../middleware/auth";
import { koError } from "../schemas/content";

export const adminRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook, strict: false });
adminRoutes.use("/admin/*", requireAdmin);

const keyPattern = /^[A-Za-z0-9_-]{1,64}$/;
const organizationKey = z.string().regex(keyPattern, "must be 1 to 64 letters, digits, - or _");
const organizationView = z
  .object({
    organizationKey: z.string(),
    name: z.string(),
    syncCode: z.string(),
    apiKey: z.string(),
    plan: z.enum(PLANS),
    entitlements: z.array(z.enum(ENTITLEMENTS)),
    network: z.string().nullable(),
    createdAt: z.string(),
  })
  .openapi("AdminOrganization");
const credentialsView = z.object({
  syncCode: z.string(),
  apiKey: z.string(),
  apiSecret: z.string().openapi({ description: "Shown once" }),
  apiToken: z.string().openapi({ description: "Shown once" }),
});

function view(org: OrganizationWithNetwork): z.infer<typeof organizationView> {
  return {
    organizationKey: org.organizationKey,
    name: org.name,
    syncCode: org.syncCode,
    apiKey: org.apiKey,
    plan: org.plan,
    entitlements: org.entitlements,
    network: org.networkName,
    createdAt: org.createdAt,
  };
}

const security = [{ adminAuth: [] }];
const ok = <T>(schema: T, description = "OK") => ({ description, content: { "application/json": { schema } } });
const failures = {
  400: ok(koError, "Invalid input"),
  401: ok(koError, "Operator token required"),
  404: ok(koError, "Unknown organization"),
};
const jsonBody = <T>(schema: T) => ({ required: true, content: { "application/json": { schema } } });
const orgParam = z.object({ organizationKey });

async function loadOrg(c: Context<AppEnv>, key: string) {
  const org = await findOrganizationByKey(c.get("db"), key);
  if (!org) throw notFound(`organization ${key} does not exist`);
  return org;
}

async function networkId(c: Context<AppEnv>, name: string | null | undefined, now: string) {
  if (name === undefined) return undefined;
  return name === null ? null : ensureNetwork(c.get("db"), name, now);
}

const createBody = z
  .strictObject({
    organizationKey,
    name: z.string().min(1).max(200).optional(),
    plan: z.enum(PLANS).default("standard"),
    entitlements: z.array(z.enum(ENTITLEMENTS)).default([]),
    network: z.string().min(1).max(100).nullable().optional(),
  })
  .openapi("AdminCreateOrganization");

adminRoutes.openapi(
  createRoute({
    method: "post",
    path: "/admin/organizations",
    tags: ["Operator"],
    summary: "Create an organization (credentials are returned once)",
    security,
    request: { body: jsonBody(createBody) },
    responses: { 200: ok(z.object({ organization: organizationView, credentials: credentialsView })), ...failures },
  }),
  async (c) => {
    const body = c.req.valid("json");
    const db = c.get("db");
    if (await findOrganizationByKey(db, body.organizationKey)) {
      throw badRequest(`organizationKey: ${body.organizationKey} is already in use`);
    }
    const now = new Date().toISOString();
    const credentials = generateCredentials();
    await insertOrganization(db, {
      organizationKey: body.organizationKey,
      name: body.name ?? body.organizationKey,
      plan: body.plan,
      entitlements: [...new Set(body.entitlements)],
      networkId: (await networkId(c, body.network, now)) ?? null,
      syncCode: credentials.syncCode,
      apiKey: credentials.apiKey,
      apiSecretHash: await sha256Hex(credentials.apiSecret),
      tokenHash: await sha256Hex(credentials.apiToken),
      now,
    });
    const org = await loadOrg(c, body.organizationKey);
    return c.json({ organization: view(org), credentials }, 200);
  },
);

adminRoutes.openapi(
  createRoute({
    method: "get",
    path: "/admin/organizations",
    tags: ["Operator"],
    summary: "List organizations",
    security,
    responses: { 200: ok(z.object({ organizations: z.array(organizationView) })), 401: failures[401] },
  }),
  async (c) => c.json({ organizations: (await listOrganizations(c.get("db"))).map(view) }, 200),
);

adminRoutes.openapi(
  createRoute({
    method: "get",
    path: "/admin/organizations/{organizationKey}",
    tags: ["Operator"],
    summary: "Show an organization and its sub-organizations",
    security,
    request: { params: orgParam },
    responses: {
      200: ok(
        z.object({
          organization: organizationView,
          subOrganizations: z.array(z.object({ name: z.string(), mmiKey: z.string(), createdAt: z.string() })),
        }),
      ),
      ...failures,
    },
  }),
  async (c) => {
    const org = await loadOrg(c, c.req.valid("param").organizationKey);
    const subs = await listSubOrganizations(c.get("db"), org.id);
    return c.json(
      {
        organization: view(org),
        subOrganizations: subs.map((s) => ({ name: s.name, mmiKey: s.mmiKey, createdAt: s.createdAt })),
      },
      200,
    );
  },
);

const patchBody = z
  .strictObject({
    name: z.string().min(1).max(200).optional(),
    plan: z.enum(PLANS).optional(),
    entitlements: z.array(z.enum(ENTITLEMENTS)).optional(),
    network: z.string().min(1).max(100).nullable().optional(),
  })
  .openapi("AdminUpdateOrganization");

adminRoutes.openapi(
  createRoute({
    method: "patch",
    path: "/admin/organizations/{organizationKey}",
    tags: ["Operator"],
    summary: "Set plan, entitlements, network (name, or null to leave it) or name",
    security,
    request: { params: orgParam, body: jsonBody(patchBody) },
    responses: { 200: ok(z.object({ organization: organizationView })), ...failures },
  }),
  async (c) => {
    const org = await loadOrg(c, c.req.valid("param").organizationKey);
    const body = c.req.valid("json");
    const network = await networkId(c, body.network, new Date().toISOString());
    await updateOrganization(c.get("db"), org.id, {
      ...(body.name !== undefined && { name: body.name }),
      ...(body.plan !== undefined && { plan: body.plan }),
      ...(body.entitlements !== undefined && { entitlements: [...new Set(body.entitlements)] }),
      ...(network !== undefined && { networkId: network }),
    });
    return c.json({ organization: view(await loadOrg(c, org.organizationKey)) }, 200);
  },
);

const subOrgBody = z
  .strictObject({
    name: z.string().min(1).max(200),
    mmiKey: z.string().regex(keyPattern, "must be 1 to 64 letters, digits, - or _").optional(),
  })
  .openapi("AdminCreateSubOrganization");

adminRoutes.openapi(
  createRoute({
    method: "post",
    path: "/admin/organizations/{organizationKey}/sub-organizations",
    tags: ["Operator"],
    summary: "Create a sub-organization; returns its MMI key",
    security,
    request: { params: orgParam, body: jsonBody(subOrgBody) },
    responses: { 200: ok(z.object({ name: z.string(), mmiKey: z.string() })), ...failures },
  }),
  async (c) => {
    const org = await loadOrg(c, c.req.valid("param").organizationKey);
    const body = c.req.valid("json");
    const mmiKey = body.mmiKey ?? `mmi_${randomAlphanumeric(16)}`;
    try {
      const sub = await insertSubOrganization(c.get("db"), {
        organizationId: org.id,
        name: body.name,
        mmiKey,
        now: new Date().toISOString(),
      });
      return c.json({ name: sub.name, mmiKey: sub.mmiKey }, 200);
    } catch (err) {
      if (isUniqueViolation(err, "sub_organizations.mmi_key")) throw badRequest(`mmiKey: ${mmiKey} is already in use`);
      throw err;
    }
  },
);

const CREDENTIAL_PARTS = ["syncCode", "apiKey", "apiSecret", "apiToken"] as const;
const rotateBody = z
  .strictObject({
    rotate: z
      .array(z.enum(CREDENTIAL_PARTS))
      .min(1)
      .default(["apiSecret", "apiToken"])
      .openapi({ description: "Which credentials to replace (default apiSecret and apiToken). Rotating syncCode changes feed URLs." }),
  })
  .openapi("AdminRotateCredentials");

adminRoutes.openapi(
  createRoute({
    method: "post",
    path: "/admin/organizations/{organizationKey}/credentials/rotate",
    tags: ["Operator"],
    summary: "Rotate credentials; the new ones are returned once, the old ones stop working",
    security,
    request: { params: orgParam, body: { required: false, content: { "application/json": { schema: rotateBody } } } },
    responses: { 200: ok(z.object({ rotated: z.array(z.string()), credentials: credentialsView.partial() })), ...failures },
  }),
  async (c) => {
    const org = await loadOrg(c, c.req.valid("param").organizationKey);
    const rotate = new Set(c.req.valid("json")?.rotate ?? ["apiSecret", "apiToken"]);
    const fresh = generateCredentials();
    const issued: Partial<typeof fresh> = {};
    for (const part of rotate) issued[part] = fresh[part];
    await replaceCredentials(c.get("db"), org.id, {
      ...(issued.syncCode && { syncCode: issued.syncCode }),
      ...(issued.apiKey && { apiKey: issued.apiKey }),
      ...(issued.apiSecret && { apiSecretHash: await sha256Hex(issued.apiSecret) }),
      ...(issued.apiToken && { tokenHash: await sha256Hex(issued.apiToken) }),
      now: new Date().toISOString(),
    });
    return c.json({ rotated: [...rotate], credentials: issued }, 200);
  },
);

adminRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/admin/organizations/{organizationKey}",
    tags: ["Operator"],
    summary: "Delete an organization with its content, feeds and published files",
    description:
      "Metadata goes at once (cascading); feed files are removed before the answer; media and thumbnails are deleted after it (in batches of 1000 keys). Statistics rows stay.",
    security,
    request: { params: orgParam },
    responses: { 200: ok(z.object({ deleted: z.string(), feeds: z.number(), videos: z.number() })), ...failures },
  }),
  async (c) => {
    const db = c.get("db");
    const org = await loadOrg(c, c.req.valid("param").organizationKey);
    const [orgFeeds, mediaKeys] = await Promise.all([listFeeds(db, org.id), contentObjectKeys(db, org.id)]);
    await deleteOrganization(db, org.id);
    await c.env.MEDIA.delete([orgFeedListKey(org.syncCode)]);
    for (const feed of orgFeeds) await removeFeedFiles(c.env.MEDIA, feed.feedId);
    c.executionCtx.waitUntil(deleteKeys(c.env.MEDIA, mediaKeys));
    return c.json({ deleted: org.organizationKey, feeds: orgFeeds.length, videos: mediaKeys.length / 2 }, 200);
  },
);

async function deleteKeys(bucket: R2Bucket, keys: string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 1000) await bucket.delete(keys.slice(i, i + 1000));
}
