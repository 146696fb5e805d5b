// The roles and scopes matrix is written down once in code (./access.ts) and once in
// docs/api.md: this keeps the two the same.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { MEMBER_ROLES, TOKEN_SCOPES } from "../../shared/vocabulary";
import { ALL_CAPABILITIES, capabilitiesOf, ROLE_CAPABILITIES, SCOPE_CAPABILITIES } from "./access";

describe("the access matrix", () => {
  it("docs/api.md's roles and scopes tables are the matrix of src/domain/members/access.ts", () => {
    const doc = readFileSync(new URL("../../../docs/api.md", import.meta.url), "utf8");
    const table = (heading: string, columns: readonly string[]) => {
      const start = doc.indexOf(heading);
      expect(start, `docs/api.md has ${heading}`).toBeGreaterThan(-1);
      const rows = doc
        .slice(start)
        .split("\n")
        .filter((l) => l.startsWith("| `"));
      const found: Record<string, string[]> = {};
      for (const row of rows) {
        const cells = row.split("|").map((c) => c.trim());
        const capability = cells[1]!.replace(/`/g, "");
        if (!ALL_CAPABILITIES.includes(capability as never) || capability in found) break;
        found[capability] = columns.filter((_, i) => cells[i + 3] === "✓");
      }
      return found;
    };
    const roles = table("#### Roles", MEMBER_ROLES);
    const scopes = table("#### Token scopes", TOKEN_SCOPES);
    for (const capability of ALL_CAPABILITIES) {
      expect(roles[capability], capability).toEqual(
        MEMBER_ROLES.filter((r) => ROLE_CAPABILITIES[r].includes(capability)),
      );
      expect(scopes[capability], capability).toEqual(
        TOKEN_SCOPES.filter((s) => SCOPE_CAPABILITIES[s].includes(capability)),
      );
    }
  });

  it("a token never does more than its member's role", () => {
    for (const role of MEMBER_ROLES)
      for (const scope of TOKEN_SCOPES)
        for (const c of capabilitiesOf(role, scope)) expect(ROLE_CAPABILITIES[role]).toContain(c);
    expect([...capabilitiesOf("analyst", "content")]).not.toContain("content:write");
    expect([...capabilitiesOf(null, "read")]).not.toContain("content:write");
    expect([...capabilitiesOf(null, null)]).toEqual(ALL_CAPABILITIES);
  });
});
