declare module "*/entitlements.mjs" {
  export const ALL_ENTITLEMENTS: string[];
}
