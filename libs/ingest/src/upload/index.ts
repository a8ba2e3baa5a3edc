export { extractUploadText, type UploadedFileInput, type UploadParsers, type UploadText } from './upload-text';
export {
  ACCEPTED_UPLOAD_EXTENSIONS,
  UnreadableFileError,
  UnsupportedMediaTypeError,
  UploadTooLargeError,
  DEFAULT_UPLOAD_LIMITS,
  type UnreadableReason,
  type UploadLimit,
  type UploadLimits,
} from './upload-errors';
