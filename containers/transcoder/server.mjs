// The Container's entry point: the transcoder on port 8080 (the Container class's defaultPort).
import { startTranscoderServer } from "./transcoder.mjs";

const { url } = await startTranscoderServer({ port: 8080, host: "0.0.0.0" });
console.log(`transcoder listening on ${url}`);
