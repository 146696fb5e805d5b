// @dailymotion/vmap ships no types: what the player reads of it.
declare module "@dailymotion/vmap" {
  export default class VMAP {
    constructor(xml: Document);
    version: string | null;
    adBreaks: {
      timeOffset: string | null;
      breakType: string | null;
      breakId: string | null;
      adSource: {
        vastAdData: Element | null;
        adTagURI: { templateType: string | null; uri: string } | null;
      } | null;
    }[];
  }
}
