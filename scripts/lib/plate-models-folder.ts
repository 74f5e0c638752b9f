import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A models folder as `detectd models pull` leaves the plate pair: links to the detector and the
 * reader (with its fast-plate-ocr configuration), each with the configuration that declares its
 * kind and family. The caller removes it.
 */
export function plateModelsFolder(models: { readonly detector: string; readonly reader: string }): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-plates-'));
  const reader = path.basename(models.reader, '.onnx');
  const detector = path.basename(models.detector, '.onnx');
  const readerConfig = path.join(path.dirname(models.reader), `${reader}_plate_config.yaml`);
  for (const file of [models.detector, models.reader, readerConfig]) fs.symlinkSync(path.resolve(file), path.join(folder, path.basename(file)));
  fs.writeFileSync(path.join(folder, `${detector}.json`), JSON.stringify({ kind: 'plates', family: 'yolo-plates-end2end' }));
  fs.writeFileSync(path.join(folder, `${reader}.json`), JSON.stringify({ kind: 'plate-text', family: 'fast-plate-ocr' }));
  return folder;
}
