export { extractUploadText, type UploadedFileInput, type UploadParsers, type UploadText } from './upload-text';
export {
  ACCEPTED_UPLOAD_EXTENSIONS,
  UnreadableFileError,
  UnsupportedMediaTypeError,
  type UnreadableReason,
} from './upload-errors';
