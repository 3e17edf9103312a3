/**
 * Files sent with recipients and onboardings (identity documents, statements): the bytes
 * are sealed (AES-256-GCM, vault subkey) in MongoDB and the API answers with a reference.
 */
import { createHash } from 'node:crypto';
import type { Db } from 'mongodb';
import { Keyring, sealBytes } from '../../domain/crypto';
import { newId } from '../../domain/credentials';
import type { StoredDocumentRef } from '../../domain/recipients/codecs';

export async function storeDocuments(
  db: Db, keyring: Keyring, owner: { organizationCode: string; ownerId: string },
  files: Array<{ file_name: string; content_type: string; content_category: string; content: string }>,
): Promise<StoredDocumentRef[]> {
  const refs: StoredDocumentRef[] = [];
  for (const file of files) {
    const id = `doc_${newId()}`;
    const bytes = Buffer.from(file.content, 'base64');
    const sealed = sealBytes(keyring, 'vault', bytes, id);
    await db.collection('stored_documents').insertOne({
      _id: id as never,
      organization_code: owner.organizationCode,
      owner_id: owner.ownerId,
      file_name: file.file_name,
      content_type: file.content_type,
      content_category: file.content_category,
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      key_id: sealed.keyId,
      data: sealed.data,
      created_at: new Date(),
    });
    refs.push({ file_name: file.file_name, content_type: file.content_type, content_category: file.content_category, content: id });
  }
  return refs;
}
