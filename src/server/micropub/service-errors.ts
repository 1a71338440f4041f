// The post service's errors, as the Micropub answers clients understand.
import { badRequest, HttpError } from "../../contract/http-error.ts";
import { PostNotFoundError } from "../../contract/posts.ts";
import { InvalidCursorError, InvalidPostError } from "../posts/errors.ts";
import { StoreError } from "../stores/content-store.ts";

export async function asMicropubErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof HttpError) throw error;
    if (error instanceof StoreError)
      throw new HttpError(
        502,
        "store_failed",
        error.recorded
          ? `possekit saved the change, but the site's store refused it: ${error.message}. possekit tries again by itself; the status page shows it until the site has it`
          : `Nothing was published: the site's store refused the post (${error.message})${error.hint ? `; ${error.hint}` : ""}. Send it again once the store works`,
      );
    if (error instanceof PostNotFoundError)
      throw badRequest(`No post exists at ${error.url}; check the URL (q=source lists the posts)`);
    if (error instanceof InvalidPostError || error instanceof InvalidCursorError)
      throw badRequest(error.message);
    throw error;
  }
}
