import { expect } from 'chai';
import { PARAMETER_RULES } from '../src/features/objects/parameters.js';
import { parseImageConfigurations } from '../src/tasks/image-parameters.js';
import { DetectdError } from '../src/core/errors.js';
import { decodeRawData } from '../src/core/raw-data.js';

describe('configuration parameters', () => {
  it('defaults to ConfidenceThreshold 0.1 and no extra images', () => {
    expect(parseImageConfigurations(PARAMETER_RULES, undefined, 'v1')).to.deep.equal({ confidenceThreshold: 0.1, outputCroppedImage: false, outputVisualizedImage: false });
  });

  it('parses values given as strings', () => {
    const parsed = parseImageConfigurations(PARAMETER_RULES, 
      [
        { parameter: 'ConfidenceThreshold', value: '0' },
        { parameter: 'OutputCroppedImage', value: 'True' },
        { parameter: 'OutputVisualizedImage', value: 'true' },
      ],
      'v1',
    );
    expect(parsed).to.deep.equal({ confidenceThreshold: 0, outputCroppedImage: true, outputVisualizedImage: true });
    expect(parseImageConfigurations(PARAMETER_RULES, [{ parameter: 'ConfidenceThreshold', value: '1' }], 'legacy').confidenceThreshold).to.equal(1);
    expect(parseImageConfigurations(PARAMETER_RULES, [{ parameter: 'ConfidenceThreshold', value: '.25' }], 'legacy').confidenceThreshold).to.equal(0.25);
  });

  it('refuses unknown names, prototype keys, NaN, infinities and out-of-range numbers', () => {
    for (const [parameter, value] of [
      ['toString', 'x'],
      ['__proto__', '1'],
      ['ConfidenceThreshold', 'NaN'],
      ['ConfidenceThreshold', 'Infinity'],
      ['ConfidenceThreshold', '1.0000001'],
      ['ConfidenceThreshold', ''],
      ['ConfidenceThreshold', '0x1'],
    ]) {
      expect(() => parseImageConfigurations(PARAMETER_RULES, [{ parameter, value }], 'v1'), `${parameter}=${value}`).to.throw(DetectdError, parameter);
    }
  });
});

describe('raw_data base64', () => {
  it('decodes standard base64 with or without padding, data URLs and line breaks', () => {
    const bytes = Buffer.from('hello world!?');
    const text = bytes.toString('base64');
    expect(decodeRawData(text)).to.deep.equal(bytes);
    expect(decodeRawData(text.replace(/=+$/, ''))).to.deep.equal(bytes);
    expect(decodeRawData(`data:image/png;base64,${text}`)).to.deep.equal(bytes);
    expect(decodeRawData(text.slice(0, 8) + '\r\n' + text.slice(8))).to.deep.equal(bytes);
  });

  it('accepts the URL-safe alphabet too', () => {
    expect(decodeRawData('-_-_')).to.deep.equal(Buffer.from('+/+/', 'base64'));
  });

  it('refuses junk anywhere, misplaced padding and impossible lengths', () => {
    const valid = Buffer.from('some bytes to encode').toString('base64');
    for (const bad of ['ab$c', '=abc', 'ab=c', 'abcde', '', valid.slice(0, 10) + '*' + valid.slice(10), valid + '!', 'Zm9v YmFy!']) {
      expect(() => decodeRawData(bad), bad).to.throw(DetectdError);
    }
  });
});
