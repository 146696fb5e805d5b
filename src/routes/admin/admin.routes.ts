// The operator API (Authorization: Bearer ADMIN_TOKEN): organizations, plans, entitlements,
// networks, sub-organizations, credentials, and what the spec gives no endpoint for on videos
// (service categories, syndication windows, removed, isLive, urlHLS), and feed rebuilds.
import { createRoute, z } from "@hono/zod-openapi";
import { jsonBody, jsonContent, koErrors, SECURITY } from "../../http/openapi";
import {
  contentKeyParam,
  createOrganizationBody,
  credentialsView,
  operatorVideoBody,
  operatorVideoView,
  organizationView,
  orgParam,
  rebuildBody,
  rebuildResult,
  rotateBody,
  statisticsMoveBody,
  statisticsMoveView,
  statisticsShardsView,
  subOrganizationBody,
  updateOrganizationBody,
} from "../../schemas/admin";
import { ingestionQuery, ingestionStatus } from "../../schemas/events";

const base = { tags: ["Operator"], security: SECURITY.admin };
const errors = koErrors(400, 401, 404, 503);

export const createOrganization = createRoute({
  ...base,
  method: "post",
  path: "/admin/organizations",
  operationId: "adminCreateOrganization",
  summary: "Create an organization (credentials are returned once)",
  request: { body: jsonBody(createOrganizationBody) },
  responses: {
    200: jsonContent(
      z.object({ organization: organizationView, credentials: credentialsView }),
      "Created",
    ),
    ...errors,
  },
});

export const listOrganizations = createRoute({
  ...base,
  method: "get",
  path: "/admin/organizations",
  operationId: "adminListOrganizations",
  summary: "List organizations",
  responses: {
    200: jsonContent(z.object({ organizations: z.array(organizationView) }), "Organizations"),
    ...koErrors(401, 503),
  },
});

export const showOrganization = createRoute({
  ...base,
  method: "get",
  path: "/admin/organizations/{organizationKey}",
  operationId: "adminGetOrganization",
  summary: "Show an organization and its sub-organizations",
  request: { params: orgParam },
  responses: {
    200: jsonContent(
      z.object({
        organization: organizationView,
        subOrganizations: z.array(
          z.object({ name: z.string(), mmiKey: z.string(), createdAt: z.string() }),
        ),
        statisticsMove: statisticsMoveView.nullable().openapi({
          description:
            "The move of its statistics under way, or the last one (kept a few days); null when none",
        }),
      }),
      "The organization",
    ),
    ...errors,
  },
});

export const updateOrganization = createRoute({
  ...base,
  method: "patch",
  path: "/admin/organizations/{organizationKey}",
  operationId: "adminUpdateOrganization",
  summary: "Set plan, entitlements, network (name, or null to leave it) or name",
  request: { params: orgParam, body: jsonBody(updateOrganizationBody) },
  responses: {
    200: jsonContent(z.object({ organization: organizationView }), "Updated"),
    ...errors,
  },
});

export const createSubOrganization = createRoute({
  ...base,
  method: "post",
  path: "/admin/organizations/{organizationKey}/sub-organizations",
  operationId: "adminCreateSubOrganization",
  summary: "Create a sub-organization; returns its MMI key",
  request: { params: orgParam, body: jsonBody(subOrganizationBody) },
  responses: {
    200: jsonContent(z.object({ name: z.string(), mmiKey: z.string() }), "Created"),
    ...errors,
  },
});

export const rotateCredentials = createRoute({
  ...base,
  method: "post",
  path: "/admin/organizations/{organizationKey}/credentials/rotate",
  operationId: "adminRotateCredentials",
  summary: "Rotate credentials; the new ones are returned once, the old ones stop working",
  request: {
    params: orgParam,
    body: { required: false, content: { "application/json": { schema: rotateBody } } },
  },
  responses: {
    200: jsonContent(
      z.object({ rotated: z.array(z.string()), credentials: credentialsView.partial() }),
      "Rotated",
    ),
    ...errors,
  },
});

export const deleteOrganization = createRoute({
  ...base,
  method: "delete",
  path: "/admin/organizations/{organizationKey}",
  operationId: "adminDeleteOrganization",
  summary: "Delete an organization with its content, feeds, published files and statistics",
  description:
    "Metadata and statistics go at once; feed files are removed before the answer; open uploads are aborted and media and thumbnails deleted after it.",
  request: { params: orgParam },
  responses: {
    200: jsonContent(
      z.object({ deleted: z.string(), feeds: z.number(), videos: z.number() }),
      "Deleted",
    ),
    ...errors,
  },
});

export const updateVideo = createRoute({
  ...base,
  method: "patch",
  path: "/admin/videos/{contentKey}",
  operationId: "adminUpdateVideo",
  summary: "Set a video's serviceCategories, syndication windows, removed, isLive or urlHLS",
  request: { params: contentKeyParam, body: jsonBody(operatorVideoBody) },
  responses: { 200: jsonContent(operatorVideoView, "The video's operator fields"), ...errors },
});

export const rebuildFeeds = createRoute({
  ...base,
  method: "post",
  path: "/admin/feeds/rebuild",
  operationId: "adminRebuildFeeds",
  summary: "Rebuild feed files now",
  description:
    "After a bulk import, to force a rewrite, or to measure the cost of rebuilding (bench/feeds.mjs). Runs before answering.",
  request: { body: jsonBody(rebuildBody) },
  responses: { 200: jsonContent(rebuildResult, "What was rebuilt"), ...errors },
});

export const moveStatistics = createRoute({
  ...base,
  method: "post",
  path: "/admin/organizations/{organizationKey}/statistics/move",
  operationId: "adminMoveStatistics",
  summary: "Move an organization's statistics to another shard, one bounded step per call",
  description:
    "The first call starts the move; each call (and each cron run) does its next step and answers where it stands. Repeat until `done` " +
    '(`npm run admin -- stats move` does). Events keep being accepted throughout; nothing is lost or counted twice (docs/statistics.md "Moving an organization").',
  request: { params: orgParam, body: jsonBody(statisticsMoveBody) },
  responses: {
    200: jsonContent(statisticsMoveView, "Where the move stands"),
    ...koErrors(400, 401, 404, 409, 503),
  },
});

export const statisticsShards = createRoute({
  ...base,
  method: "get",
  path: "/admin/statistics/shards",
  operationId: "adminStatisticsShards",
  summary:
    "The statistics shards: size against D1's limit, organizations, today's ingestion and lag, moves, dead letters",
  responses: { 200: jsonContent(statisticsShardsView, "Every shard"), ...koErrors(401, 503) },
});

export const organizationIngestion = createRoute({
  ...base,
  method: "get",
  path: "/admin/organizations/{organizationKey}/ingestion",
  operationId: "adminOrganizationIngestion",
  summary: "What ingestion did for one organization (its GET /v2/ingestion), with its shard",
  request: { params: orgParam, query: ingestionQuery },
  responses: {
    200: jsonContent(
      ingestionStatus.extend({ statsShard: z.number() }),
      "The organization's ingestion",
    ),
    ...errors,
  },
});
