// E1–E5: content management (write credentials; errors as {message}).
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { completeUpload, createContent, loadContentOr404, removeContent, replaceContent, toContentObject } from "../domain/content";
import type { AppEnv } from "../http/context";
import { rebuildFeedsAfterWrite } from "./publishing";
import { messageErrors } from "../http/errors";
import { validationHook } from "../http/validation";
import { authenticate } from "../middleware/auth";
import {
  completeUploadBody,
  contentKeyQuery,
  contentObject,
  createContentBody,
  createContentResponse,
  messageError,
  updateContentBody,
} from "../schemas/content";

const security: Record<string, string[]>[] = [{ syncCodeAuth: [], apiKeyAuth: [], apiSecretAuth: [] }, { bearerAuth: [] }];
const errors = {
  400: { description: "Invalid input (the message names the field)", content: { "application/json": { schema: messageError } } },
  401: { description: "Authentication failed", content: { "application/json": { schema: messageError } } },
  404: { description: "Content key does not exist", content: { "application/json": { schema: messageError } } },
  429: { description: "Rate limit exceeded", content: { "application/json": { schema: messageError } } },
};
const json = <T>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });

export const contentRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook, strict: false });

// "/v2/content/*" also matches "/v2/content" itself (and the trailing-slash form).
contentRoutes.use("/v2/content/*", messageErrors, authenticate("write"));

function deps(c: Context<AppEnv>) {
  return {
    db: c.get("db"),
    bucket: c.env.MEDIA,
    config: c.get("config"),
    baseUrl: c.get("baseUrl"),
    staticUrl: c.get("staticUrl"),
    now: new Date(),
  };
}

function scope(c: Context<AppEnv>) {
  const { org, subOrg } = c.get("auth");
  return { organizationId: org.id, subOrganizationId: subOrg?.id ?? null };
}

const jsonBody = <T>(schema: T) => ({ required: true, content: { "application/json": { schema } } });

contentRoutes.openapi(
  createRoute({
    method: "post",
    path: "/v2/content",
    tags: ["Content"],
    summary: "E1. Create content and start the upload",
    description:
      "Records the metadata, opens a multipart upload and returns one signed URL per part (PUT each part of chunkSize bytes, keep the ETag header) plus a thumbnailUploadUrl (PUT a 1920x1080 JPEG).",
    security,
    request: { body: jsonBody(createContentBody) },
    responses: { 200: json(createContentResponse, "Created"), 400: errors[400], 401: errors[401], 429: errors[429] },
  }),
  async (c) => c.json(await createContent(deps(c), scope(c), c.req.valid("json")), 200),
);

contentRoutes.openapi(
  createRoute({
    method: "post",
    path: "/v2/content/complete",
    tags: ["Content"],
    summary: "E2. Complete the upload",
    description:
      "Completes the multipart upload, checks the media (MP4/MOV, H.264 video, AAC audio, at most 1920x1080) and publishes the content. A rejected upload answers 400 with the reason; its media is deleted.",
    security,
    request: { body: jsonBody(completeUploadBody) },
    responses: { 200: json(contentObject, "Published"), 400: errors[400], 401: errors[401], 404: errors[404], 429: errors[429] },
  }),
  async (c) => {
    const published = await completeUpload(deps(c), scope(c), c.req.valid("json"));
    rebuildFeedsAfterWrite(c, c.get("auth").org.id);
    return c.json(published, 200);
  },
);

contentRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v2/content",
    tags: ["Content"],
    summary: "E3. Retrieve content",
    security,
    request: { query: contentKeyQuery },
    responses: { 200: json(contentObject, "The content"), 400: errors[400], 401: errors[401], 404: errors[404], 429: errors[429] },
  }),
  async (c) => {
    const d = deps(c);
    const content = await loadContentOr404(d.db, scope(c), c.req.valid("query").contentKey);
    return c.json(toContentObject(content, d), 200);
  },
);

contentRoutes.openapi(
  createRoute({
    method: "put",
    path: "/v2/content",
    tags: ["Content"],
    summary: "E4. Update content",
    description: "Every field of the update column of spec 2.1 is required; thumbnailUrl may be null.",
    security,
    request: { body: jsonBody(updateContentBody) },
    responses: { 200: json(contentObject, "As stored"), 400: errors[400], 401: errors[401], 404: errors[404], 429: errors[429] },
  }),
  async (c) => {
    const updated = await replaceContent(deps(c), scope(c), c.req.valid("json"));
    rebuildFeedsAfterWrite(c, c.get("auth").org.id);
    return c.json(updated, 200);
  },
);

contentRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/v2/content",
    tags: ["Content"],
    summary: "E5. Delete content",
    description: "Deletes the metadata, the media and the thumbnail, and aborts an unfinished upload. Statistics stay.",
    security,
    request: { query: contentKeyQuery },
    responses: { 200: json(contentObject, "The deleted content"), 400: errors[400], 401: errors[401], 404: errors[404], 429: errors[429] },
  }),
  async (c) => {
    const deleted = await removeContent(deps(c), scope(c), c.req.valid("query").contentKey);
    rebuildFeedsAfterWrite(c, c.get("auth").org.id);
    return c.json(deleted, 200);
  },
);

