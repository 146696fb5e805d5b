// The SSRF rule of webhook URLs (no network): what is refused and why, with and without the
// local-development setting; and the judgement of DNS answers.
import { describe, expect, it } from "vitest";
import { dohAddresses, judgeAddresses } from "./dns";
import { addressKind, checkWebhookUrl } from "./url-policy";

const reason = (url: string, loopback = false) => {
  const check = checkWebhookUrl(url, loopback);
  return check.ok ? "ok" : check.reason;
};

describe("webhook URLs", () => {
  it("accepts https to public hosts on the default port", () => {
    expect(checkWebhookUrl("https://hooks.example.com/in?x=1", false)).toMatchObject({
      ok: true,
      resolve: true,
    });
    expect(checkWebhookUrl("https://8.8.8.8/hook", false)).toMatchObject({
      ok: true,
      resolve: false,
    });
    expect(reason("https://[2606:4700:4700::1111]/hook")).toBe("ok");
  });

  it("refuses what could reach inside a network", () => {
    for (const url of [
      "https://127.0.0.1/",
      "https://2130706433/",
      "https://0x7f.1/",
      "https://[::1]/",
      "https://localhost/",
      "https://api.localhost/",
    ]) {
      expect(reason(url), url).toBe("must not point at a loopback address");
    }
    for (const url of [
      "https://10.1.2.3/",
      "https://172.16.0.1/",
      "https://192.168.1.1/",
      "https://169.254.169.254/latest/meta-data/",
      "https://100.100.100.200/",
      "https://100.64.0.1/",
      "https://0.0.0.0/",
      "https://224.0.0.1/",
      "https://[fe80::1]/",
      "https://[fd00::1]/",
      "https://[::ffff:10.0.0.1]/",
      "https://[::ffff:127.0.0.1]/",
      "https://[64:ff9b::a00:1]/",
      "https://[2001:db8::1]/",
      "https://[::]/",
    ]) {
      expect(reason(url), url).toMatch(/private, link-local or reserved|loopback/);
    }
    for (const url of [
      "https://metadata.google.internal/",
      "https://printer.local/",
      "https://intranet/",
      "https://router.home.arpa/",
    ]) {
      expect(reason(url), url).toBe("must name a public host");
    }
    expect(reason("http://hooks.example.com/")).toBe("must be an https URL");
    expect(reason("ftp://hooks.example.com/")).toBe("must be an https URL");
    expect(reason("https://user:pw@hooks.example.com/")).toBe(
      "must not carry a user name or password",
    );
    expect(reason("https://hooks.example.com:8443/")).toBe("must use the default https port (443)");
    expect(reason("not a url")).toBe("must be an absolute https URL");
  });

  it("lets loopback through, over http and on any port, only with the local-development setting", () => {
    expect(reason("http://127.0.0.1:8788/hooks", true)).toBe("ok");
    expect(reason("http://localhost:3000/", true)).toBe("ok");
    expect(reason("https://[::1]:9000/", true)).toBe("ok");
    // The setting opens loopback only.
    expect(reason("http://10.0.0.1/", true)).toBe("must be an https URL");
    expect(reason("https://10.0.0.1/", true)).toMatch(/private/);
  });

  it("judges a name by every address it resolves to", () => {
    expect(addressKind("203.0.113.9")).toBe("special");
    expect(addressKind("93.184.216.34")).toBe("public");
    expect(addressKind("not an address")).toBeNull();
    const answer = {
      Status: 0,
      Answer: [
        { type: 5, data: "edge.example.net." },
        { type: 1, data: "93.184.216.34" },
        { type: 28, data: "2606:2800:220:1::1" },
      ],
    };
    expect(dohAddresses(answer)).toEqual(["93.184.216.34", "2606:2800:220:1::1"]);
    expect(judgeAddresses("a.example", dohAddresses(answer))).toEqual({ ok: true });
    expect(judgeAddresses("127.0.0.1.nip.io", ["127.0.0.1"])).toEqual({
      ok: false,
      reason: "127.0.0.1.nip.io resolves to a non-public address (127.0.0.1)",
    });
    expect(judgeAddresses("mixed.example", ["93.184.216.34", "10.0.0.5"])).toMatchObject({
      ok: false,
    });
    expect(judgeAddresses("nx.example", [])).toEqual({
      ok: false,
      reason: "nx.example does not resolve",
    });
  });
});
