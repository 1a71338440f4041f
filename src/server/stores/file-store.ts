// The folder and git stores: a post becomes a file at its preset's path (publication.postTypes
// overriding), rewritten on each change and removed when the post is deleted (or turned back into a
// draft the generator cannot keep, or made private). The file's path is remembered, so a post whose path changes
// leaves no stale file behind.
import type { Database } from "../../contract/database.ts";
import type { Post } from "../../contract/posts.ts";
import { visibilityOf } from "../../contract/visibility.ts";
import type { ContentStore, StoreAction, StoreMedia } from "./content-store.ts";
import type { FileChange, FileWriter } from "./file-writer.ts";
import { dateFormatter, expandTemplate, repositoryPath } from "./path-template.ts";
import { postFile } from "./post-file.ts";
import { type PostTypeTemplates, type Preset, postTypeOf } from "./presets.ts";

export interface FileStoreOptions {
  type: "folder" | "git";
  preset: Preset;
  /** The preset's templates with publication.postTypes over them. */
  types: Preset["types"];
  writer: FileWriter;
  database: Database;
  me: string;
  timezone: string;
  /** Commit messages: {action} and {url}. */
  message: string;
}

export class FileStore implements ContentStore {
  readonly type: "folder" | "git";
  readonly writesDrafts: boolean;
  private readonly dates: Intl.DateTimeFormat;

  constructor(private readonly options: FileStoreOptions) {
    this.type = options.type;
    this.writesDrafts = options.preset.drafts !== "none";
    this.dates = dateFormatter(options.timezone);
  }

  /** Where the post's file goes, or undefined when the store keeps no file of it. */
  pathOf(post: Post, slug: string): string | undefined {
    // A private post is the owner's alone, and a static site serves every file to anyone: it has no
    // file (one written while it was public is removed).
    if (post.deleted || visibilityOf(post.properties) === "private") return undefined;
    const drafts = this.options.preset.drafts;
    if (post.status === "draft" && drafts === "none") return undefined;
    const templates: PostTypeTemplates = this.options.types[postTypeOf(post.properties)];
    const template = post.status === "draft" && typeof drafts === "object" ? drafts.path : templates.path;
    return repositoryPath(template, { slug, date: post.published }, this.dates);
  }

  async publish(posts: readonly Post[], action: StoreAction): Promise<void> {
    if (posts.length === 0) return;
    const ids = posts.map((post) => post.id);
    const { rows } = await this.options.database.query<{ id: string; slug: string; path: string | null }>(
      `SELECT p.id::text AS id, p.slug, f.path FROM posts p LEFT JOIN publication_files f ON f.post_id = p.id
        WHERE p.id = ANY($1::bigint[])`,
      [ids],
    );
    const known = new Map(rows.map((row) => [row.id, row]));
    const changes: FileChange[] = [];
    const paths = new Map<string, string | null>();
    for (const post of posts) {
      const row = known.get(post.id);
      if (!row) continue;
      const path = this.pathOf(post, row.slug) ?? null;
      if (row.path && row.path !== path) changes.push({ path: row.path, remove: true });
      if (path) changes.push({ path, content: postFile(post, this.options.preset) });
      paths.set(post.id, path);
    }
    if (changes.length === 0) return;
    const first = posts[0];
    const url = posts.length === 1 && first ? first.url : `${posts.length} posts`;
    const message = this.options.message.replaceAll("{action}", action).replaceAll("{url}", url);
    await this.options.writer.apply(changes, message);
    for (const [id, path] of paths) {
      await this.options.database.query(
        path === null
          ? "DELETE FROM publication_files WHERE post_id = $1::bigint"
          : `INSERT INTO publication_files (post_id, path) VALUES ($1::bigint, $2)
             ON CONFLICT (post_id) DO UPDATE SET path = EXCLUDED.path`,
        path === null ? [id] : [id, path],
      );
    }
  }

  mediaUrl(name: string): string {
    return expandTemplate(this.options.preset.media.url, { me: this.options.me, name }, this.dates);
  }

  async publishMedia(files: readonly StoreMedia[]): Promise<void> {
    const changes = files.map((file) => ({
      path: repositoryPath(this.options.preset.media.path, { name: file.name }, this.dates),
      content: file.bytes,
    }));
    if (changes.length === 0) return;
    const names = files.map((file) => file.name).join(", ");
    await this.options.writer.apply(
      changes,
      this.options.message.replaceAll("{action}", "Media").replaceAll("{url}", names),
    );
  }

  open(): Promise<void> {
    return this.options.writer.open?.() ?? Promise.resolve();
  }

  describe(): Record<string, unknown> {
    return { type: this.type, preset: this.options.preset.name, ...this.options.writer.describe?.() };
  }
}
