// The post service's errors, as the Micropub answers clients understand.
import { badRequest, HttpError } from "../../contract/http-error.ts";
import { PostNotFoundError } from "../../contract/posts.ts";
import { InvalidCursorError, InvalidPostError } from "../posts/errors.ts";

export async function asMicropubErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof HttpError) throw error;
    if (error instanceof PostNotFoundError)
      throw badRequest(`No post exists at ${error.url}; check the URL (q=source lists the posts)`);
    if (error instanceof InvalidPostError || error instanceof InvalidCursorError)
      throw badRequest(error.message);
    throw error;
  }
}
