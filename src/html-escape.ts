/** Text made safe to place in HTML (element content or a quoted attribute): shared by the console's pages and the API's docs page. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
