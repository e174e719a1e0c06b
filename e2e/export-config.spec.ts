/**
 * Carrying the picks elsewhere: the config JSON (which the command line takes as is), the Quark and
 * ONNX Runtime scripts (Python that parses, naming UltraFace's unnamed nodes as the studio does), and
 * importing the JSON back, which restores the picks; a broken file is refused with a named error.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { expect, openWithModel, test } from './support.ts';

const pythonParses = (source: string) =>
  execFileSync('/usr/bin/python3', ['-c', 'import ast,sys; ast.parse(sys.stdin.read())'], {
    input: source,
    encoding: 'utf8',
  });

test.describe('export and import of the configuration', () => {
  test('config JSON and scripts carry the picks; importing the JSON restores them', async ({ page }, info) => {
    await openWithModel(page, 'ultraface-rfb-320.onnx');
    const panel = page.getByTestId('exclusion-panel');

    // An id that names nothing is refused with the core's named error, and nothing is added.
    await panel.getByTestId('add-node-input').fill('Conv_999');
    await panel.getByTestId('add-node-button').click();
    await expect(panel.getByTestId('add-error')).toHaveAttribute('data-error-name', 'ExclusionError');
    await expect(panel.getByTestId('exclusion-entry')).toHaveCount(0);

    await panel.getByTestId('add-node-input').fill('Conv_3 Relu_5');
    await panel.getByTestId('add-node-button').click();
    await panel.getByTestId('add-optype-select').selectOption('Softmax');
    await panel.getByTestId('add-optype-button').click();
    const entries = panel.getByTestId('exclusion-entry');
    await expect(entries).toHaveCount(2);
    await expect(entries.nth(0)).toHaveAttribute('data-node-count', '2');
    await expect(entries.nth(1)).toHaveAttribute('data-node-count', '1');

    // Hover (or keyboard focus) marks the entry whose nodes the graph highlights.
    await entries.nth(1).hover();
    await expect(entries.nth(1)).toHaveClass(/exclusion-entry--hovered/);
    await entries.nth(0).focus();
    await expect(entries.nth(0)).toHaveClass(/exclusion-entry--hovered/);

    const [download] = await Promise.all([page.waitForEvent('download'), panel.getByTestId('export-config').click()]);
    expect(download.suggestedFilename()).toBe('ultraface-rfb-320.qstudio.json');
    const configPath = info.outputPath('ultraface-rfb-320.qstudio.json');
    await download.saveAs(configPath);
    const json = JSON.parse(fs.readFileSync(configPath, 'utf8'));
    expect(json).toMatchObject({
      activationType: 'int8',
      nodesToExclude: ['Conv_3', 'Relu_5'],
      opTypesToExclude: ['Softmax'],
      subgraphsToExclude: [],
    });
    expect(json.studio.exclusions).toHaveLength(2);

    await panel.getByTestId('export-quark').click();
    const code = panel.getByTestId('snippet-code');
    await expect(code).toContainText('NODES_TO_EXCLUDE = [');
    const quark = (await code.textContent())!;
    expect(quark).toContain('settings.subgraphs_to_exclude = SUBGRAPHS_TO_EXCLUDE');
    expect(quark).toContain('name_nodes_like_quant_studio(model)');
    for (const id of ['"Conv_3"', '"Relu_5"', '"Softmax_']) expect(quark).toContain(id);
    expect(() => pythonParses(quark)).not.toThrow();
    const [py] = await Promise.all([page.waitForEvent('download'), panel.getByTestId('snippet-download').click()]);
    expect(py.suggestedFilename()).toBe('quantize_ultraface_rfb_320_quark.py');

    await panel.getByTestId('export-ort').click();
    await expect(panel.getByTestId('snippet-dialog')).toHaveAttribute('data-snippet-kind', 'ort');
    const ort = (await code.textContent())!;
    expect(ort).toContain('quantize_static(');
    expect(() => pythonParses(ort)).not.toThrow();

    // Remove both picks (the button, then the Delete key), then bring them back from the file.
    await entries.nth(0).getByTestId('exclusion-remove').click();
    await entries.nth(0).focus();
    await page.keyboard.press('Delete');
    await expect(panel.getByTestId('exclusion-empty')).toBeVisible();
    await panel.getByTestId('import-config-input').setInputFiles(configPath);
    await expect(panel.getByTestId('import-note')).toContainText('2 exclusions restored');
    await expect(entries.getByTestId('exclusion-entry-name')).toHaveText(['2 nodes', 'All Softmax']);
    await expect(entries.nth(0)).toHaveAttribute('data-node-count', '2');

    // A broken file: a named ConfigError, and the picks stay.
    await panel
      .getByTestId('import-config-input')
      .setInputFiles({ name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{"activationType": ') });
    await expect(panel.getByTestId('import-error')).toHaveAttribute('data-error-name', 'ConfigError');
    await expect(entries).toHaveCount(2);
  });

  test('an imported pick that names no node of this model is flagged, and the scripts refuse it by name', async ({
    page,
  }) => {
    await openWithModel(page, 'mnist.onnx');
    const panel = page.getByTestId('exclusion-panel');
    const file = {
      nodesToExclude: ['Conv_3'],
      studio: { exclusions: [{ kind: 'nodes', name: 'from another model', nodes: ['Conv_3'] }] },
    };
    await panel
      .getByTestId('import-config-input')
      .setInputFiles({ name: 'other.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(file)) });
    const entry = panel.getByTestId('exclusion-entry');
    await expect(entry).toHaveCount(1);
    await expect(entry.getByTestId('exclusion-entry-count')).toHaveText('names no node');
    await expect(entry).toContainText('"Conv_3" names no node');
    await panel.getByTestId('export-quark').click();
    await expect(panel.getByTestId('export-error')).toHaveAttribute('data-error-name', 'ExclusionError');
    await expect(panel.getByTestId('snippet-dialog')).toHaveCount(0);
  });
});
