/**
 * A `multipart/form-data` request as the pipeline hands it to an endpoint: the text fields, and the one
 * file spooled to disk (never held in memory: a transcription may be 26 MiB). The pipeline deletes the
 * spooled file once the request has ended, whichever way.
 */
export interface MultipartUpload {
  /** The text fields in the order they came; a repeated name (`timestamp_granularities[]`) appears once per value. */
  readonly fields: ReadonlyArray<readonly [name: string, value: string]>;
  readonly file: UploadedFile | undefined;
  /** The fields of file parts that were not kept (a form that takes no file); refused by the endpoint by name. */
  readonly unreadFiles: readonly string[];
}

export interface UploadedFile {
  /** The form field that carried it (`file`). */
  readonly field: string;
  readonly filename: string;
  readonly contentType: string;
  /** Where the bytes were spooled. */
  readonly path: string;
  readonly size: number;
}

/** The first value of a text field, if it was sent. */
export function fieldValue(upload: MultipartUpload, name: string): string | undefined {
  for (const [field, value] of upload.fields) if (field === name) return value;
  return undefined;
}

/** Every value of a text field (for repeated fields such as `timestamp_granularities[]`). */
export function fieldValues(upload: MultipartUpload, name: string): string[] {
  return upload.fields.filter(([field]) => field === name).map(([, value]) => value);
}
