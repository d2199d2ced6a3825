import { describe, expect, it } from 'vitest';
import { apiKeyShape, apiKeysFromEnv, splitList } from '../src/index.js';

describe('credentials from the environment', () => {
  it('reads CLS_API_KEYS and every CLS_API_KEY_<AREA>[_N], once each', () => {
    const env = {
      CLS_API_KEYS: ' wms_test_a , manager_test_b,,',
      CLS_API_KEY_CAM: 'cam_test_c',
      CLS_API_KEY_WMS_2: 'wms_test_d',
      CLS_API_KEY_WMS: 'wms_test_a',
      CLS_API_KEY_lower: 'ignored_test_e',
      CLS_OTHER_API_KEY_WMS: 'wms_test_other',
    };
    expect(apiKeysFromEnv(env)).toEqual(['wms_test_a', 'manager_test_b', 'cam_test_c', 'wms_test_d']);
    expect(apiKeysFromEnv(env, 'CLS_OTHER_API_KEY')).toEqual(['wms_test_other']);
    expect(apiKeysFromEnv({})).toEqual([]);
  });

  it('splits lists and reads a key area and environment', () => {
    expect(splitList(' a, ,b ')).toEqual(['a', 'b']);
    expect(splitList(undefined)).toEqual([]);
    expect(apiKeyShape('manager_live_x_y')).toEqual({ area: 'manager', env: 'live' });
    expect(apiKeyShape('Wms_test_x')).toBeUndefined();
    expect(apiKeyShape('wms_test_')).toBeUndefined();
  });
});
