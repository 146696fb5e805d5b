// Operator API for videos: what the spec gives no endpoint for (service categories, syndication
// windows, removed, isLive, urlHLS).
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { findContentByKeyAnyOrg } from "../db/content";
import { syndicationsOf } from "../db/catalog";
import { applyOperatorChanges } from "../domain/operator-videos";
import { isAlpha3 } from "../domain/geo";
import type { AppEnv } from "../http/context";
import { notFound } from "../http/errors";
import { validationHook } from "../http/validation";
import { requireAdmin } from "../middleware/auth";
import { koError } from "../schemas/content";
import { CONTENT_KEY_PATTERN } from "../storage/layout";
import { syndicationObject } from "../domain/catalog/records";
import { rebuildFeedsAfterWrite } from "./publishing";

export const adminVideoRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook, strict: false });
adminVideoRoutes.use("/admin/videos/*", requireAdmin);

const isoTimestamp = z.iso.datetime({ offset: true, error: "must be an ISO 8601 timestamp" });
const syndicationInput = z
  .strictObject({
    name: z.string().max(200).default(""),
    start_time: isoTimestamp,
    stop_time: isoTimestamp.nullable().default(null),
    geos: z
      .array(z.string().refine((g) => g === "-" || isAlpha3(g), "geos must be ISO 3166 alpha-3 codes or \"-\""))
      .default([]),
  })
  .refine((s) => s.stop_time === null || Date.parse(s.stop_time) > Date.parse(s.start_time), "stop_time must be after start_time");

export const operatorVideoBody = z
  .strictObject({
    serviceCategories: z.array(z.string().min(1).max(200)).max(100).optional(),
    syndications: z.array(syndicationInput).max(100).optional().openapi({ description: "Replaces every window of the video" }),
    removed: z.boolean().optional(),
    isLive: z.boolean().optional(),
    urlHLS: z.url().nullable().optional(),
  })
  .openapi("OperatorVideoChanges");

const view = z.object({
  contentKey: z.string(),
  serviceCategories: z.array(z.string()),
  syndications: z.array(z.object({ name: z.string(), start_time: z.string(), stop_time: z.string().nullable(), geos: z.array(z.string()) })),
  removed: z.boolean(),
  isLive: z.boolean(),
  urlHLS: z.string().nullable(),
});

adminVideoRoutes.openapi(
  createRoute({
    method: "patch",
    path: "/admin/videos/{contentKey}",
    tags: ["Operator"],
    summary: "Set a video's serviceCategories, syndication windows, removed, isLive or urlHLS",
    security: [{ adminAuth: [] }],
    request: {
      params: z.object({ contentKey: z.string().regex(CONTENT_KEY_PATTERN) }),
      body: { required: true, content: { "application/json": { schema: operatorVideoBody } } },
    },
    responses: {
      200: { description: "The video's operator fields", content: { "application/json": { schema: view } } },
      400: { description: "Invalid input", content: { "application/json": { schema: koError } } },
      404: { description: "Unknown content key", content: { "application/json": { schema: koError } } },
    },
  }),
  async (c) => {
    const db = c.get("db");
    const contentKey = c.req.valid("param").contentKey;
    const content = await findContentByKeyAnyOrg(db, contentKey);
    if (!content) throw notFound(`contentKey: ${contentKey} does not exist`);
    const updated = await applyOperatorChanges(db, content, c.req.valid("json"), new Date().toISOString());
    rebuildFeedsAfterWrite(c, content.organizationId);
    const windows = (await syndicationsOf(db, [updated.id])).get(updated.id) ?? [];
    return c.json(
      {
        contentKey: updated.contentKey,
        serviceCategories: updated.serviceCategories,
        syndications: windows.map(syndicationObject),
        removed: updated.removed,
        isLive: updated.isLive,
        urlHLS: updated.urlHls,
      },
      200,
    );
  },
);
