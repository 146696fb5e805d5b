import { describe, expect, it } from "vitest";
import { CmcdSyntaxError, CmcdToken, firstItem, parseCmcd } from "./cmcd";

describe("parseCmcd", () => {
  it("reads what CML's encoder writes: tokens, strings, numbers, lists with parameters, bare keys", () => {
    const d = parseCmcd(
      'bl=(21300),br=(3200;ot=v 640;ot=a),cid="abc",e=ps,ec=("fragLoadError"),msd=329,pr=1.25,sid="6e2f-c457",sta=p,su,bg=?0,v=2',
    );
    expect(firstItem(d.get("bl"))).toEqual({ value: 21300 });
    expect(d.get("br")).toEqual([
      { value: 3200, params: { ot: new CmcdToken("v") } },
      { value: 640, params: { ot: new CmcdToken("a") } },
    ]);
    expect(d.get("cid")).toEqual({ value: "abc" });
    expect(d.get("e")).toEqual({ value: new CmcdToken("ps") });
    expect(d.get("ec")).toEqual([{ value: "fragLoadError" }]);
    expect(d.get("pr")).toEqual({ value: 1.25 });
    expect(d.get("su")).toEqual({ value: true });
    expect(d.get("bg")).toEqual({ value: false });
    expect(d.size).toBe(12);
  });

  it("reads escapes, custom keys, byte sequences and spaces after commas", () => {
    const d = parseCmcd('com.example-myKey="a \\"q\\" \\\\",  cmsds=:YWJj:, n=-4');
    expect(d.get("com.example-myKey")).toEqual({ value: 'a "q" \\' });
    expect(d.get("cmsds")).toEqual({ value: "YWJj" });
    expect(d.get("n")).toEqual({ value: -4 });
    expect(parseCmcd("").size).toBe(0);
  });

  it("says where a payload breaks", () => {
    const fault = (s: string) => {
      try {
        parseCmcd(s);
      } catch (err) {
        expect(err).toBeInstanceOf(CmcdSyntaxError);
        return (err as Error).message;
      }
      throw new Error(`parsed: ${s}`);
    };
    expect(fault('sid="abc')).toBe("at character 9 (the end): a string is not closed");
    expect(fault("br=(300 ,sid")).toMatch(/at character 9 \(","\): expected a value/);
    expect(fault("a=1;")).toMatch(/expected a key/);
    expect(fault("a=1 b=2")).toMatch(/expected "," between members/);
    expect(fault("a=1,")).toMatch(/a trailing comma/);
    expect(fault("a=?2")).toMatch(/a boolean is \?0 or \?1/);
    expect(fault('a="\\n"')).toMatch(/only \\" and \\\\ may be escaped/);
    expect(fault("1a=2")).toMatch(/expected a key/);
  });
});
