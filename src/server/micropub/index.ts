// The built-in package "@possekit/endpoint-micropub": the host loads its default export by name.
import { MicropubEndpoint } from "./micropub-endpoint.ts";

export type { MicropubOptions } from "./micropub-endpoint.ts";
export { MicropubEndpoint };
export default MicropubEndpoint;
