<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="es" sourcelanguage="en">
<context>
    <name>CannedPicker</name>
    <message>
        <source>Canned replies</source>
        <translation>Respuestas predefinidas</translation>
    </message>
</context>
<context>
    <name>CannedRepliesDialog</name>
    <message>
        <source>Only a supervisor can add, change or delete canned replies.</source>
        <translation>Solo un supervisor puede añadir, cambiar o borrar respuestas predefinidas.</translation>
    </message>
    <message>
        <source>This canned reply no longer exists: someone deleted it meanwhile.</source>
        <translation>Esta respuesta predefinida ya no existe: alguien la borró mientras tanto.</translation>
    </message>
    <message>
        <source>Another canned reply already uses /{shortcut}: choose another shortcut.</source>
        <translation>Otra respuesta predefinida ya usa /{shortcut}: elige otro atajo.</translation>
    </message>
    <message>
        <source>The shortcut is 1 to {count} letters, digits, _ or -.</source>
        <translation>El atajo tiene de 1 a {count} letras, dígitos, _ o -.</translation>
    </message>
    <message>
        <source>The title is 1 to {count} characters.</source>
        <translation>El título tiene de 1 a {count} caracteres.</translation>
    </message>
    <message>
        <source>The text is 1 to {count} characters.</source>
        <translation>El texto tiene de 1 a {count} caracteres.</translation>
    </message>
    <message>
        <source>Canned replies</source>
        <translation>Respuestas predefinidas</translation>
    </message>
    <message>
        <source>Shortcut</source>
        <translation>Atajo</translation>
    </message>
    <message>
        <source>thanks</source>
        <translation>gracias</translation>
    </message>
    <message>
        <source>Title</source>
        <translation>Título</translation>
    </message>
    <message>
        <source>Reply text</source>
        <translation>Texto de la respuesta</translation>
    </message>
    <message>
        <source>Hi {{name}}, thanks for writing to us!</source>
        <translation>¡Hola {{name}}, gracias por escribirnos!</translation>
    </message>
    <message>
        <source>{{name}} and {{number}} are filled in with the customer&apos;s name and number.</source>
        <translation>{{name}} y {{number}} se rellenan con el nombre y el número del cliente.</translation>
    </message>
    <message>
        <source>New</source>
        <translation>Nueva</translation>
    </message>
    <message>
        <source>New canned reply</source>
        <translation>Nueva respuesta predefinida</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>Guardar</translation>
    </message>
    <message>
        <source>Save canned reply</source>
        <translation>Guardar respuesta predefinida</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>Borrar</translation>
    </message>
    <message>
        <source>Delete canned reply</source>
        <translation>Borrar respuesta predefinida</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>Cerrar</translation>
    </message>
    <message>
        <source>Shortcut  /</source>
        <translation>Atajo  /</translation>
    </message>
    <message>
        <source>Text</source>
        <translation>Texto</translation>
    </message>
    <message>
        <source>Saving /{shortcut}…</source>
        <translation>Guardando /{shortcut}…</translation>
    </message>
    <message>
        <source>Deleting /{shortcut}…</source>
        <translation>Borrando /{shortcut}…</translation>
    </message>
    <message>
        <source>Delete /{shortcut} ({title}) for everyone?</source>
        <translation>¿Borrar /{shortcut} ({title}) para todo el equipo?</translation>
    </message>
    <message>
        <source>Saved /{shortcut}.</source>
        <translation>/{shortcut} guardada.</translation>
    </message>
    <message>
        <source>Deleted.</source>
        <translation>Borrada.</translation>
    </message>
    <message>
        <source>No canned replies yet: write one and save it.</source>
        <translation>Aún no hay respuestas predefinidas: escribe una y guárdala.</translation>
    </message>
    <message>
        <source>Canned replies could not be loaded: {reason}</source>
        <translation>No se pudieron cargar las respuestas predefinidas: {reason}</translation>
    </message>
</context>
<context>
    <name>Composer</name>
    <message>
        <source>The customer&apos;s 24-hour window is closed: free text cannot be sent. Pick a template below to reopen it.</source>
        <translation>La ventana de 24 horas del cliente está cerrada: no se puede enviar texto libre. Elige una plantilla abajo para reabrirla.</translation>
    </message>
    <message>
        <source>Write a reply…  (Ctrl+Enter sends)</source>
        <translation>Escribe una respuesta…  (Ctrl+Intro envía)</translation>
    </message>
    <message>
        <source>Write an internal note for the team; the customer never sees it…  (Ctrl+Enter adds it)</source>
        <translation>Escribe una nota interna para el equipo; el cliente nunca la ve…  (Ctrl+Intro la añade)</translation>
    </message>
    <message>
        <source>Send anyway</source>
        <translation>Enviar de todos modos</translation>
    </message>
    <message>
        <source>Another system</source>
        <translation>Otro sistema</translation>
    </message>
    <message>
        <source>Attached: {name}  ·  {size}</source>
        <translation>Adjunto: {name}  ·  {size}</translation>
    </message>
    <message>
        <source>Attach a file</source>
        <translation>Adjuntar un archivo</translation>
    </message>
    <message>
        <source>Reply</source>
        <translation>Responder</translation>
    </message>
    <message>
        <source>Note</source>
        <translation>Nota</translation>
    </message>
    <message>
        <source>Write a reply</source>
        <translation>Escribir una respuesta</translation>
    </message>
    <message>
        <source>Write an internal note</source>
        <translation>Escribir una nota interna</translation>
    </message>
    <message>
        <source>An internal note for the team  ({shortcut})</source>
        <translation>Una nota interna para el equipo  ({shortcut})</translation>
    </message>
    <message>
        <source>Time left in the customer&apos;s window</source>
        <translation>Tiempo restante de la ventana del cliente</translation>
    </message>
    <message>
        <source>Reply text</source>
        <translation>Texto de la respuesta</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>Enviar</translation>
    </message>
    <message>
        <source>Send reply</source>
        <translation>Enviar respuesta</translation>
    </message>
    <message>
        <source>Template</source>
        <translation>Plantilla</translation>
    </message>
    <message>
        <source>Template preview</source>
        <translation>Vista previa de la plantilla</translation>
    </message>
    <message>
        <source>Send template</source>
        <translation>Enviar plantilla</translation>
    </message>
    <message>
        <source>Attach…</source>
        <translation>Adjuntar…</translation>
    </message>
    <message>
        <source>Attach a photo, voice note, video or document (or drop or paste one)</source>
        <translation>Adjunta una foto, nota de voz, vídeo o documento (o suéltalo o pégalo aquí)</translation>
    </message>
    <message>
        <source>Attached file</source>
        <translation>Archivo adjunto</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>Quitar</translation>
    </message>
    <message>
        <source>Remove the attached file</source>
        <translation>Quitar el archivo adjunto</translation>
    </message>
    <message>
        <source>Upload progress</source>
        <translation>Progreso de la subida</translation>
    </message>
    <message>
        <source>Note text</source>
        <translation>Texto de la nota</translation>
    </message>
    <message>
        <source>Add note</source>
        <translation>Añadir nota</translation>
    </message>
    <message>
        <source>Window: {countdown}</source>
        <translation>Ventana: {countdown}</translation>
    </message>
    <message>
        <source>Window closed: templates only</source>
        <translation>Ventana cerrada: solo plantillas</translation>
    </message>
    <message>
        <source>Template value: {name}</source>
        <translation>Valor de la plantilla: {name}</translation>
    </message>
    <message>
        <source>Fill in every template value first.</source>
        <translation>Rellena primero todos los valores de la plantilla.</translation>
    </message>
    <message>
        <source>Sending…</source>
        <translation>Enviando…</translation>
    </message>
    <message>
        <source>Queued.</source>
        <translation>En cola.</translation>
    </message>
    <message>
        <source>{state}.</source>
        <translation>{state}.</translation>
    </message>
    <message>
        <source>A colleague wrote in this conversation after you last looked.</source>
        <translation>Un compañero escribió en esta conversación después de que la miraras por última vez.</translation>
    </message>
    <message>
        <source>Add a caption…  (Ctrl+Enter sends)</source>
        <translation>Añade un pie de foto…  (Ctrl+Intro envía)</translation>
    </message>
    <message>
        <source>Could not attach the file: {reason}</source>
        <translation>No se pudo adjuntar el archivo: {reason}</translation>
    </message>
    <message>
        <source>A voice note or audio file takes no caption; send the words on their own.</source>
        <translation>Una nota de voz o un audio no lleva pie; envía el texto por separado.</translation>
    </message>
    <message>
        <source>Uploading…</source>
        <translation>Subiendo…</translation>
    </message>
    <message>
        <source>another system</source>
        <translation>otro sistema</translation>
    </message>
    <message>
        <source>someone else</source>
        <translation>otra persona</translation>
    </message>
    <message>
        <source>The conversation changed</source>
        <translation>La conversación cambió</translation>
    </message>
    <message>
        <source>{who} wrote to this customer after you last looked:

{messages}

Send your reply anyway?</source>
        <translation>{who} escribió a este cliente después de que lo miraras por última vez:

{messages}

¿Enviar tu respuesta de todos modos?</translation>
    </message>
    <message>
        <source>Not sent. Read what your colleague wrote; your draft is kept.</source>
        <translation>No enviada. Lee lo que escribió tu compañero; tu borrador se conserva.</translation>
    </message>
    <message>
        <source>Adding the note…</source>
        <translation>Añadiendo la nota…</translation>
    </message>
    <message>
        <source>Note added.</source>
        <translation>Nota añadida.</translation>
    </message>
</context>
<context>
    <name>ConversationListModel</name>
    <message>
        <source>window {state}</source>
        <translation>ventana {state}</translation>
    </message>
    <message numerus="yes">
        <source>%n unread</source>
        <translation>
            <numerusform>%Ln sin leer</numerusform>
            <numerusform>%Ln sin leer</numerusform>
        </translation>
    </message>
    <message>
        <source>labels: {labels}</source>
        <translation>etiquetas: {labels}</translation>
    </message>
    <message>
        <source>opted out of marketing</source>
        <translation>excluido del marketing</translation>
    </message>
</context>
<context>
    <name>DetailsPane</name>
    <message>
        <source>Contact</source>
        <translation>Contacto</translation>
    </message>
    <message>
        <source>Contact name</source>
        <translation>Nombre del contacto</translation>
    </message>
    <message>
        <source>Contact number</source>
        <translation>Número del contacto</translation>
    </message>
    <message>
        <source>Window state</source>
        <translation>Estado de la ventana</translation>
    </message>
    <message>
        <source>Marketing</source>
        <translation>Marketing</translation>
    </message>
    <message>
        <source>Assignee</source>
        <translation>Asignado a</translation>
    </message>
    <message>
        <source>Conversation status</source>
        <translation>Estado de la conversación</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Nombre</translation>
    </message>
    <message>
        <source>Number</source>
        <translation>Número</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Estado</translation>
    </message>
    <message>
        <source>Window</source>
        <translation>Ventana</translation>
    </message>
    <message>
        <source>Assign to me</source>
        <translation>Asignármela</translation>
    </message>
    <message>
        <source>Assign to…</source>
        <translation>Asignar a…</translation>
    </message>
    <message>
        <source>Assign to someone else</source>
        <translation>Asignar a otra persona</translation>
    </message>
    <message>
        <source>Labels</source>
        <translation>Etiquetas</translation>
    </message>
    <message>
        <source>Labels of the conversation</source>
        <translation>Etiquetas de la conversación</translation>
    </message>
    <message>
        <source>No labels</source>
        <translation>Sin etiquetas</translation>
    </message>
    <message>
        <source>Add a label…</source>
        <translation>Añadir una etiqueta…</translation>
    </message>
    <message>
        <source>Add a label</source>
        <translation>Añadir una etiqueta</translation>
    </message>
    <message>
        <source>Selected message</source>
        <translation>Mensaje seleccionado</translation>
    </message>
    <message>
        <source>Purpose</source>
        <translation>Propósito</translation>
    </message>
    <message>
        <source>Trigger</source>
        <translation>Origen</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Estado</translation>
    </message>
    <message>
        <source>Message key</source>
        <translation>Clave del mensaje</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>Error</translation>
    </message>
    <message>
        <source>Key</source>
        <translation>Clave</translation>
    </message>
    <message>
        <source>Problem</source>
        <translation>Problema</translation>
    </message>
    <message>
        <source>Link to message…</source>
        <translation>Vincular a un mensaje…</translation>
    </message>
    <message>
        <source>Link reply to a message</source>
        <translation>Vincular la respuesta a un mensaje</translation>
    </message>
    <message>
        <source>Give back</source>
        <translation>Devolver</translation>
    </message>
    <message>
        <source>Give the conversation back</source>
        <translation>Devolver la conversación</translation>
    </message>
    <message>
        <source>Assigned to {name}: a supervisor can reassign it.</source>
        <translation>Asignada a {name}: un supervisor puede reasignarla.</translation>
    </message>
    <message>
        <source>(no profile name)</source>
        <translation>(sin nombre de perfil)</translation>
    </message>
    <message>
        <source>WhatsApp id {id}</source>
        <translation>ID de WhatsApp {id}</translation>
    </message>
    <message>
        <source>open, {countdown}</source>
        <translation>abierta, {countdown}</translation>
    </message>
    <message>
        <source>closed: only templates can be sent</source>
        <translation>cerrada: solo se pueden enviar plantillas</translation>
    </message>
    <message>
        <source>{mark}: service replies still go</source>
        <translation>{mark}: las respuestas de atención siguen llegando</translation>
    </message>
    <message>
        <source>allowed (no opt-out)</source>
        <translation>permitido (sin exclusión)</translation>
    </message>
    <message>
        <source>nobody</source>
        <translation>nadie</translation>
    </message>
    <message>
        <source>customer message</source>
        <translation>mensaje del cliente</translation>
    </message>
    <message>
        <source>answers {message}</source>
        <translation>responde a {message}</translation>
    </message>
    <message>
        <source>internal note</source>
        <translation>nota interna</translation>
    </message>
    <message>
        <source>by {author}</source>
        <translation>de {author}</translation>
    </message>
    <message>
        <source>seen by the team only, never sent to the customer</source>
        <translation>solo la ve el equipo, nunca se envía al cliente</translation>
    </message>
    <message>
        <source>note {number}</source>
        <translation>nota {number}</translation>
    </message>
    <message>
        <source>Remove label {label}</source>
        <translation>Quitar la etiqueta {label}</translation>
    </message>
    <message>
        <source>Remove the label “{label}”</source>
        <translation>Quitar la etiqueta «{label}»</translation>
    </message>
</context>
<context>
    <name>HealthView</name>
    <message>
        <source>Sending for over 1 min</source>
        <translation>Enviando desde hace más de 1 min</translation>
    </message>
    <message>
        <source>rows claimed but not answered for a minute</source>
        <translation>filas tomadas pero sin respuesta durante un minuto</translation>
    </message>
    <message>
        <source>Dedupe rejections</source>
        <translation>Rechazos por duplicado</translation>
    </message>
    <message>
        <source>second enqueues of the same business event, refused</source>
        <translation>segundos encolados del mismo evento de negocio, rechazados</translation>
    </message>
    <message>
        <source>Duplicate webhooks</source>
        <translation>Webhooks duplicados</translation>
    </message>
    <message>
        <source>webhook events received again and ignored</source>
        <translation>eventos de webhook recibidos de nuevo e ignorados</translation>
    </message>
    <message>
        <source>Unattributed replies</source>
        <translation>Respuestas sin asignar</translation>
    </message>
    <message>
        <source>replies waiting in the work queue</source>
        <translation>respuestas esperando en la cola de trabajo</translation>
    </message>
    <message>
        <source>Sent → delivered (last hour)</source>
        <translation>Enviado → entregado (última hora)</translation>
    </message>
    <message>
        <source>median and 95th percentile</source>
        <translation>mediana y percentil 95</translation>
    </message>
    <message>
        <source>Outgoing webhooks</source>
        <translation>Webhooks salientes</translation>
    </message>
    <message>
        <source>subscriptions off after 3 days of failures / deliveries waiting</source>
        <translation>suscripciones desactivadas tras 3 días de fallos / entregas en espera</translation>
    </message>
    <message>
        <source>Last backup</source>
        <translation>Última copia de seguridad</translation>
    </message>
    <message>
        <source>red after two days without one (inbox db backup)</source>
        <translation>en rojo tras dos días sin ninguna (inbox db backup)</translation>
    </message>
    <message>
        <source>Free disk (data folder)</source>
        <translation>Disco libre (carpeta de datos)</translation>
    </message>
    <message>
        <source>red under 1 GB</source>
        <translation>en rojo por debajo de 1 GB</translation>
    </message>
    <message>
        <source>never</source>
        <translation>nunca</translation>
    </message>
    <message>
        <source>{count} min ago</source>
        <translation>hace {count} min</translation>
    </message>
    <message>
        <source>{count} h ago</source>
        <translation>hace {count} h</translation>
    </message>
    <message numerus="yes">
        <source>%n day(s) ago</source>
        <translation>
            <numerusform>hace %Ln día</numerusform>
            <numerusform>hace %Ln días</numerusform>
        </translation>
    </message>
    <message>
        <source>{size} GB</source>
        <translation>{size} GB</translation>
    </message>
    <message>
        <source>{size} MB</source>
        <translation>{size} MB</translation>
    </message>
    <message>
        <source>{size} KB</source>
        <translation>{size} KB</translation>
    </message>
    <message numerus="yes">
        <source>%n byte(s)</source>
        <translation>
            <numerusform>%Ln byte</numerusform>
            <numerusform>%Ln bytes</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n file(s)</source>
        <translation>
            <numerusform>%Ln archivo</numerusform>
            <numerusform>%Ln archivos</numerusform>
        </translation>
    </message>
    <message>
        <source>{count} downloading</source>
        <translation>{count} descargando</translation>
    </message>
    <message>
        <source>{count} could not be downloaded</source>
        <translation>{count} no se pudieron descargar</translation>
    </message>
    <message>
        <source>Media kept: {files}, {size}</source>
        <translation>Multimedia guardada: {files}, {size}</translation>
    </message>
    <message>
        <source>Queue depth by state</source>
        <translation>Profundidad de la cola por estado</translation>
    </message>
    <message>
        <source>{state} messages</source>
        <translation>Mensajes en estado {state}</translation>
    </message>
    <message>
        <source>Business number (as Meta rates it)</source>
        <translation>Número de la empresa (según la valoración de Meta)</translation>
    </message>
    <message>
        <source>not read yet</source>
        <translation>aún sin leer</translation>
    </message>
    <message>
        <source>Quality rating</source>
        <translation>Calificación de calidad</translation>
    </message>
    <message>
        <source>Messaging limit</source>
        <translation>Límite de mensajes</translation>
    </message>
    <message>
        <source>Quality warning</source>
        <translation>Aviso de calidad</translation>
    </message>
    <message>
        <source>Quality and limit history</source>
        <translation>Historial de calidad y límite</translation>
    </message>
    <message>
        <source>Sent → delivered gap (median per interval)</source>
        <translation>Intervalo enviado → entregado (mediana por intervalo)</translation>
    </message>
    <message>
        <source>seconds</source>
        <translation>segundos</translation>
    </message>
    <message>
        <source>Send rate</source>
        <translation>Ritmo de envío</translation>
    </message>
    <message>
        <source>messages / minute</source>
        <translation>mensajes / minuto</translation>
    </message>
    <message>
        <source>Media kept: none yet</source>
        <translation>Multimedia guardada: nada aún</translation>
    </message>
    <message>
        <source>{p50} s / {p95} s</source>
        <translation>{p50} s / {p95} s</translation>
    </message>
    <message>
        <source>{disabled} off / {waiting}</source>
        <translation>{disabled} desactivadas / {waiting}</translation>
    </message>
    <message>
        <source>Health measures unavailable: {reason}</source>
        <translation>Medidas de salud no disponibles: {reason}</translation>
    </message>
</context>
<context>
    <name>InboxView</name>
    <message>
        <source>Mine</source>
        <translation>Mías</translation>
    </message>
    <message>
        <source>Unassigned</source>
        <translation>Sin asignar</translation>
    </message>
    <message>
        <source>All</source>
        <translation>Todas</translation>
    </message>
    <message>
        <source>Open and pending</source>
        <translation>Abiertas y pendientes</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>Abiertas</translation>
    </message>
    <message>
        <source>Pending</source>
        <translation>Pendientes</translation>
    </message>
    <message>
        <source>Snoozed</source>
        <translation>Pospuestas</translation>
    </message>
    <message>
        <source>Resolved</source>
        <translation>Resueltas</translation>
    </message>
    <message>
        <source>All statuses</source>
        <translation>Todos los estados</translation>
    </message>
    <message>
        <source>Any window</source>
        <translation>Cualquier ventana</translation>
    </message>
    <message>
        <source>Window open</source>
        <translation>Ventana abierta</translation>
    </message>
    <message>
        <source>Window closing within the hour</source>
        <translation>La ventana cierra en menos de una hora</translation>
    </message>
    <message>
        <source>Window closed</source>
        <translation>Ventana cerrada</translation>
    </message>
    <message>
        <source>Any label</source>
        <translation>Cualquier etiqueta</translation>
    </message>
    <message>
        <source>Show the conversations: {view}</source>
        <translation>Mostrar las conversaciones: {view}</translation>
    </message>
    <message>
        <source>Show conversations by status</source>
        <translation>Mostrar conversaciones por estado</translation>
    </message>
    <message>
        <source>Search name or number  (Ctrl+K)</source>
        <translation>Buscar nombre o número  (Ctrl+K)</translation>
    </message>
    <message>
        <source>Search conversations</source>
        <translation>Buscar conversaciones</translation>
    </message>
    <message>
        <source>Filter by window</source>
        <translation>Filtrar por ventana</translation>
    </message>
    <message>
        <source>Filter by label</source>
        <translation>Filtrar por etiqueta</translation>
    </message>
    <message>
        <source>Conversations</source>
        <translation>Conversaciones</translation>
    </message>
    <message>
        <source>Select a conversation</source>
        <translation>Selecciona una conversación</translation>
    </message>
    <message>
        <source>Colleagues in this conversation</source>
        <translation>Compañeros en esta conversación</translation>
    </message>
    <message>
        <source>Conversation status</source>
        <translation>Estado de la conversación</translation>
    </message>
    <message>
        <source>Resolve</source>
        <translation>Resolver</translation>
    </message>
    <message>
        <source>Mark pending</source>
        <translation>Marcar pendiente</translation>
    </message>
    <message>
        <source>Reopen</source>
        <translation>Reabrir</translation>
    </message>
    <message>
        <source>Snooze</source>
        <translation>Posponer</translation>
    </message>
    <message>
        <source>Snooze the conversation</source>
        <translation>Posponer la conversación</translation>
    </message>
    <message>
        <source>Snooze until later  ({shortcut})</source>
        <translation>Posponer hasta más tarde  ({shortcut})</translation>
    </message>
    <message>
        <source>Thread</source>
        <translation>Hilo</translation>
    </message>
    <message>
        <source>Mark the conversation pending</source>
        <translation>Marcar la conversación como pendiente</translation>
    </message>
    <message>
        <source>{action} the conversation</source>
        <translation>{action}: la conversación</translation>
    </message>
    <message>
        <source>That message is no longer in this conversation&apos;s thread.</source>
        <translation>Ese mensaje ya no está en el hilo de esta conversación.</translation>
    </message>
    <message>
        <source>Reply queued.</source>
        <translation>Respuesta en cola.</translation>
    </message>
    <message>
        <source>Note added.</source>
        <translation>Nota añadida.</translation>
    </message>
    <message>
        <source>Your user name is not known yet: try again in a moment.</source>
        <translation>Aún no se conoce tu nombre de usuario: inténtalo de nuevo en un momento.</translation>
    </message>
    <message>
        <source>Assign conversation</source>
        <translation>Asignar conversación</translation>
    </message>
    <message>
        <source>Assign to user (empty to unassign):</source>
        <translation>Asignar al usuario (vacío para quitar la asignación):</translation>
    </message>
    <message>
        <source>Assigned to {name}.</source>
        <translation>Asignada a {name}.</translation>
    </message>
    <message>
        <source>nobody</source>
        <translation>nadie</translation>
    </message>
    <message>
        <source>Reply linked.</source>
        <translation>Respuesta vinculada.</translation>
    </message>
</context>
<context>
    <name>LinkChooser</name>
    <message>
        <source>The messages it may answer, newest first</source>
        <translation>Los mensajes a los que puede responder, del más reciente al más antiguo</translation>
    </message>
    <message>
        <source>Recent messages to this customer</source>
        <translation>Mensajes recientes a este cliente</translation>
    </message>
    <message>
        <source>sent {time}</source>
        <translation>enviado {time}</translation>
    </message>
    <message>
        <source>not sent yet</source>
        <translation>aún no enviado</translation>
    </message>
    <message>
        <source>Message to link to</source>
        <translation>Mensaje al que vincular</translation>
    </message>
    <message>
        <source>Link to this message</source>
        <translation>Vincular a este mensaje</translation>
    </message>
    <message>
        <source>Link to the chosen message</source>
        <translation>Vincular al mensaje elegido</translation>
    </message>
    <message>
        <source>Mark as new topic</source>
        <translation>Marcar como tema nuevo</translation>
    </message>
    <message>
        <source>Loading recent messages…</source>
        <translation>Cargando mensajes recientes…</translation>
    </message>
    <message>
        <source>Saving…</source>
        <translation>Guardando…</translation>
    </message>
</context>
<context>
    <name>LinkDialog</name>
    <message>
        <source>Link reply to a message</source>
        <translation>Vincular la respuesta a un mensaje</translation>
    </message>
</context>
<context>
    <name>LinkPicker</name>
    <message>
        <source>No recent messages to this customer: mark it as a new topic.</source>
        <translation>No hay mensajes recientes a este cliente: márcalo como tema nuevo.</translation>
    </message>
    <message>
        <source>Linked.</source>
        <translation>Vinculada.</translation>
    </message>
    <message>
        <source>Marked as a new topic.</source>
        <translation>Marcada como tema nuevo.</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>System colours</source>
        <translation>Colores del sistema</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>Claro</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>Oscuro</translation>
    </message>
    <message>
        <source>New reply from {name}</source>
        <translation>Nueva respuesta de {name}</translation>
    </message>
    <message>
        <source>{name} is still waiting for an answer: their window closes within the hour</source>
        <translation>{name} sigue esperando respuesta: su ventana cierra en menos de una hora</translation>
    </message>
    <message>
        <source>{author} mentioned you in a note on {name}</source>
        <translation>{author} te mencionó en una nota sobre {name}</translation>
    </message>
    <message>
        <source>WhatsApp shared inbox</source>
        <translation>Bandeja compartida de WhatsApp</translation>
    </message>
    <message>
        <source>Connection status</source>
        <translation>Estado de la conexión</translation>
    </message>
    <message>
        <source>Sections</source>
        <translation>Secciones</translation>
    </message>
    <message>
        <source>&amp;Inbox</source>
        <translation>&amp;Bandeja de entrada</translation>
    </message>
    <message>
        <source>Work queue</source>
        <translation>Cola de trabajo</translation>
    </message>
    <message>
        <source>Supervisor</source>
        <translation>Supervisión</translation>
    </message>
    <message>
        <source>Health</source>
        <translation>Salud</translation>
    </message>
    <message>
        <source>Reports</source>
        <translation>Informes</translation>
    </message>
    <message>
        <source>Search messages</source>
        <translation>Buscar mensajes</translation>
    </message>
    <message>
        <source>Search words in every conversation</source>
        <translation>Buscar palabras en todas las conversaciones</translation>
    </message>
    <message>
        <source>Search words in every conversation  ({shortcut})</source>
        <translation>Buscar palabras en todas las conversaciones  ({shortcut})</translation>
    </message>
    <message>
        <source>Canned replies</source>
        <translation>Respuestas predefinidas</translation>
    </message>
    <message>
        <source>The team&apos;s saved replies: type / and a shortcut in the composer</source>
        <translation>Las respuestas guardadas del equipo: escribe / y un atajo en el editor</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>Idioma</translation>
    </message>
    <message>
        <source>The language of the inbox</source>
        <translation>El idioma de la bandeja</translation>
    </message>
    <message>
        <source>Colour scheme</source>
        <translation>Esquema de colores</translation>
    </message>
    <message>
        <source>Shortcuts</source>
        <translation>Atajos</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>Atajos de teclado</translation>
    </message>
    <message>
        <source>Every keyboard shortcut  ({shortcut})</source>
        <translation>Todos los atajos de teclado  ({shortcut})</translation>
    </message>
    <message>
        <source>Connecting…</source>
        <translation>Conectando…</translation>
    </message>
    <message>
        <source>Could not load: {reason}</source>
        <translation>No se pudo cargar: {reason}</translation>
    </message>
    <message>
        <source>Connected: live updates on.</source>
        <translation>Conectado: actualizaciones en vivo activadas.</translation>
    </message>
    <message>
        <source>Work queue ({count})</source>
        <translation>Cola de trabajo ({count})</translation>
    </message>
    <message>
        <source>Supervisor ({count})</source>
        <translation>Supervisión ({count})</translation>
    </message>
    <message>
        <source>Connection to the backend lost — reconnecting…  ({reason})</source>
        <translation>Se perdió la conexión con el servidor — reconectando…  ({reason})</translation>
    </message>
    <message>
        <source>Reconnected; nothing was missed.</source>
        <translation>Reconectado; no se perdió nada.</translation>
    </message>
    <message>
        <source>The inbox was restored from a backup; everything shown was loaded again.</source>
        <translation>La bandeja de entrada se restauró desde una copia de seguridad; todo lo que se muestra se volvió a cargar.</translation>
    </message>
    <message>
        <source>A colleague</source>
        <translation>Un compañero</translation>
    </message>
    <message>
        <source>a customer</source>
        <translation>un cliente</translation>
    </message>
</context>
<context>
    <name>MediaActions</name>
    <message>
        <source>Save file</source>
        <translation>Guardar archivo</translation>
    </message>
    <message>
        <source>The file is still downloading from WhatsApp.</source>
        <translation>El archivo aún se está descargando de WhatsApp.</translation>
    </message>
    <message>
        <source>Photo</source>
        <translation>Foto</translation>
    </message>
    <message>
        <source>Stopped the voice note.</source>
        <translation>Nota de voz detenida.</translation>
    </message>
    <message>
        <source>Could not play the voice note: {reason}</source>
        <translation>No se pudo reproducir la nota de voz: {reason}</translation>
    </message>
    <message>
        <source>Downloading the file again…</source>
        <translation>Descargando el archivo de nuevo…</translation>
    </message>
    <message>
        <source>Playing the voice note…</source>
        <translation>Reproduciendo la nota de voz…</translation>
    </message>
    <message>
        <source>Saved {name}.</source>
        <translation>{name} guardado.</translation>
    </message>
    <message>
        <source>Could not open the file: {reason}</source>
        <translation>No se pudo abrir el archivo: {reason}</translation>
    </message>
</context>
<context>
    <name>PictureViewer</name>
    <message>
        <source>Picture</source>
        <translation>Imagen</translation>
    </message>
</context>
<context>
    <name>ReportTableModel</name>
    <message>
        <source>{count} s</source>
        <translation>{count} s</translation>
    </message>
    <message>
        <source>{count} min</source>
        <translation>{count} min</translation>
    </message>
    <message>
        <source>{hours} h {minutes} min</source>
        <translation>{hours} h {minutes} min</translation>
    </message>
    <message>
        <source>{count} h</source>
        <translation>{count} h</translation>
    </message>
    <message>
        <source>{days} d {hours} h</source>
        <translation>{days} d {hours} h</translation>
    </message>
    <message>
        <source>{count} d</source>
        <translation>{count} d</translation>
    </message>
    <message>
        <source>Person</source>
        <translation>Persona</translation>
    </message>
    <message>
        <source>Replies</source>
        <translation>Respuestas</translation>
    </message>
    <message>
        <source>Resolved</source>
        <translation>Resueltas</translation>
    </message>
    <message>
        <source>First response (median)</source>
        <translation>Primera respuesta (mediana)</translation>
    </message>
    <message>
        <source>First response (90 %)</source>
        <translation>Primera respuesta (90 %)</translation>
    </message>
    <message>
        <source>Purpose</source>
        <translation>Propósito</translation>
    </message>
    <message>
        <source>Sent</source>
        <translation>Enviados</translation>
    </message>
    <message>
        <source>Delivered</source>
        <translation>Entregados</translation>
    </message>
    <message>
        <source>Read</source>
        <translation>Leídos</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>Fallidos</translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation>Desconocidos</translation>
    </message>
    <message>
        <source>Replied</source>
        <translation>Respondidos</translation>
    </message>
</context>
<context>
    <name>ReportsView</name>
    <message>
        <source>Today</source>
        <translation>Hoy</translation>
    </message>
    <message>
        <source>Yesterday</source>
        <translation>Ayer</translation>
    </message>
    <message>
        <source>Last 7 days</source>
        <translation>Últimos 7 días</translation>
    </message>
    <message>
        <source>Last 30 days</source>
        <translation>Últimos 30 días</translation>
    </message>
    <message>
        <source>This month</source>
        <translation>Este mes</translation>
    </message>
    <message>
        <source>Custom range</source>
        <translation>Rango personalizado</translation>
    </message>
    <message>
        <source>Days or hours</source>
        <translation>Días u horas</translation>
    </message>
    <message>
        <source>People</source>
        <translation>Personas</translation>
    </message>
    <message>
        <source>Purposes</source>
        <translation>Propósitos</translation>
    </message>
    <message>
        <source>Report range</source>
        <translation>Rango del informe</translation>
    </message>
    <message>
        <source>From day</source>
        <translation>Desde el día</translation>
    </message>
    <message>
        <source>To day (included)</source>
        <translation>Hasta el día (incluido)</translation>
    </message>
    <message>
        <source>Report periods</source>
        <translation>Periodos del informe</translation>
    </message>
    <message>
        <source>By day</source>
        <translation>Por día</translation>
    </message>
    <message>
        <source>By hour</source>
        <translation>Por hora</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>Actualizar</translation>
    </message>
    <message>
        <source>Export CSV</source>
        <translation>Exportar CSV</translation>
    </message>
    <message>
        <source>Export the report as CSV</source>
        <translation>Exportar el informe como CSV</translation>
    </message>
    <message>
        <source>Range</source>
        <translation>Rango</translation>
    </message>
    <message>
        <source>to</source>
        <translation>a</translation>
    </message>
    <message>
        <source>Messages per period</source>
        <translation>Mensajes por periodo</translation>
    </message>
    <message>
        <source>First response time per period</source>
        <translation>Tiempo de primera respuesta por periodo</translation>
    </message>
    <message>
        <source>Per person</source>
        <translation>Por persona</translation>
    </message>
    <message>
        <source>Per purpose (business messages queued in the range)</source>
        <translation>Por propósito (mensajes de la empresa encolados en el rango)</translation>
    </message>
    <message>
        <source>The report&apos;s first day is after its last day.</source>
        <translation>El primer día del informe es posterior al último.</translation>
    </message>
    <message>
        <source>Report unavailable: {reason}</source>
        <translation>Informe no disponible: {reason}</translation>
    </message>
    <message>
        <source>{inbound} in · {outbound} out · {resolved} resolved</source>
        <translation>{inbound} recibidos · {outbound} enviados · {resolved} resueltas</translation>
    </message>
    <message>
        <source>Messages</source>
        <translation>Mensajes</translation>
    </message>
    <message>
        <source>From customers</source>
        <translation>De los clientes</translation>
    </message>
    <message>
        <source>From the business</source>
        <translation>De la empresa</translation>
    </message>
    <message>
        <source>messages</source>
        <translation>mensajes</translation>
    </message>
    <message>
        <source>First response ({unit})</source>
        <translation>Primera respuesta ({unit})</translation>
    </message>
    <message>
        <source>Median</source>
        <translation>Mediana</translation>
    </message>
    <message>
        <source>90 % within</source>
        <translation>90 % dentro de</translation>
    </message>
    <message>
        <source>CSV files (*.csv)</source>
        <translation>Archivos CSV (*.csv)</translation>
    </message>
    <message>
        <source>Saved {path}</source>
        <translation>Guardado en {path}</translation>
    </message>
    <message>
        <source>Could not export the report: {reason}</source>
        <translation>No se pudo exportar el informe: {reason}</translation>
    </message>
    <message>
        <source>seconds</source>
        <translation>segundos</translation>
    </message>
    <message>
        <source>minutes</source>
        <translation>minutos</translation>
    </message>
    <message>
        <source>hours</source>
        <translation>horas</translation>
    </message>
</context>
<context>
    <name>SearchDialog</name>
    <message>
        <source>Type words to find them in every conversation: any case, accents optional.</source>
        <translation>Escribe palabras para buscarlas en todas las conversaciones: sin distinguir mayúsculas, acentos opcionales.</translation>
    </message>
    <message>
        <source>customer wrote</source>
        <translation>el cliente escribió</translation>
    </message>
    <message>
        <source>we sent</source>
        <translation>enviamos</translation>
    </message>
    <message>
        <source>Search for at most {count} characters.</source>
        <translation>Busca como máximo {count} caracteres.</translation>
    </message>
    <message>
        <source>Searching…</source>
        <translation>Buscando…</translation>
    </message>
    <message>
        <source>No message contains “{query}”.</source>
        <translation>Ningún mensaje contiene «{query}».</translation>
    </message>
    <message numerus="yes">
        <source>%n+ messages found.</source>
        <translation>
            <numerusform>Más de %Ln mensaje encontrado.</numerusform>
            <numerusform>Más de %Ln mensajes encontrados.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n message(s) found.</source>
        <translation>
            <numerusform>%Ln mensaje encontrado.</numerusform>
            <numerusform>%Ln mensajes encontrados.</numerusform>
        </translation>
    </message>
    <message>
        <source>Search failed: {reason}</source>
        <translation>La búsqueda falló: {reason}</translation>
    </message>
    <message>
        <source>Search messages</source>
        <translation>Buscar mensajes</translation>
    </message>
</context>
<context>
    <name>SearchView</name>
    <message>
        <source>Search words in every conversation…</source>
        <translation>Buscar palabras en todas las conversaciones…</translation>
    </message>
    <message>
        <source>Search messages</source>
        <translation>Buscar mensajes</translation>
    </message>
    <message>
        <source>Messages found</source>
        <translation>Mensajes encontrados</translation>
    </message>
    <message>
        <source>More results</source>
        <translation>Más resultados</translation>
    </message>
    <message>
        <source>Load more results</source>
        <translation>Cargar más resultados</translation>
    </message>
</context>
<context>
    <name>ShortcutsDialog</name>
    <message>
        <source>Show this list of shortcuts</source>
        <translation>Mostrar esta lista de atajos</translation>
    </message>
    <message>
        <source>Inbox</source>
        <translation>Bandeja de entrada</translation>
    </message>
    <message>
        <source>Work queue</source>
        <translation>Cola de trabajo</translation>
    </message>
    <message>
        <source>Supervisor (supervisors only)</source>
        <translation>Supervisión (solo supervisores)</translation>
    </message>
    <message>
        <source>Health</source>
        <translation>Salud</translation>
    </message>
    <message>
        <source>Reports (supervisors only)</source>
        <translation>Informes (solo supervisores)</translation>
    </message>
    <message>
        <source>Search conversations by name or number</source>
        <translation>Buscar conversaciones por nombre o número</translation>
    </message>
    <message>
        <source>Search words in every message</source>
        <translation>Buscar palabras en todos los mensajes</translation>
    </message>
    <message>
        <source>Send the reply or add the note</source>
        <translation>Enviar la respuesta o añadir la nota</translation>
    </message>
    <message>
        <source>Switch between a reply and an internal note</source>
        <translation>Cambiar entre una respuesta y una nota interna</translation>
    </message>
    <message>
        <source>Resolve the conversation</source>
        <translation>Resolver la conversación</translation>
    </message>
    <message>
        <source>Snooze the conversation</source>
        <translation>Posponer la conversación</translation>
    </message>
    <message>
        <source>Mark the conversation pending</source>
        <translation>Marcar la conversación como pendiente</translation>
    </message>
    <message>
        <source>Reopen the conversation</source>
        <translation>Reabrir la conversación</translation>
    </message>
    <message>
        <source>Move to the next or previous control</source>
        <translation>Ir al control siguiente o anterior</translation>
    </message>
    <message>
        <source>Press the focused button, open the chosen item</source>
        <translation>Pulsar el botón enfocado, abrir el elemento elegido</translation>
    </message>
    <message>
        <source>In the composer: insert a canned reply by its shortcut</source>
        <translation>En el editor: insertar una respuesta predefinida por su atajo</translation>
    </message>
    <message>
        <source>Close a dialog without changing anything</source>
        <translation>Cerrar un diálogo sin cambiar nada</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>Atajos de teclado</translation>
    </message>
    <message>
        <source>Everything in the inbox can be done with the keyboard alone.</source>
        <translation>Todo en la bandeja se puede hacer solo con el teclado.</translation>
    </message>
    <message>
        <source>Shortcuts and what they do</source>
        <translation>Atajos y lo que hacen</translation>
    </message>
    <message>
        <source>Keys</source>
        <translation>Teclas</translation>
    </message>
    <message>
        <source>What it does</source>
        <translation>Qué hace</translation>
    </message>
</context>
<context>
    <name>SignInDialog</name>
    <message>
        <source>The sign-in could not be checked: {reason}</source>
        <translation>No se pudo comprobar el inicio de sesión: {reason}</translation>
    </message>
    <message>
        <source>The office&apos;s server does not accept this invite any more (a newer invite was made for this user, or the user was disabled). Ask whoever runs the inbox for a new invite.</source>
        <translation>El servidor de la oficina ya no acepta esta invitación (se creó una invitación más reciente para este usuario, o el usuario fue desactivado). Pide una invitación nueva a quien administra la bandeja.</translation>
    </message>
    <message>
        <source>Cannot reach the office&apos;s inbox at {url}. Check that the office PC is on, that `inbox serve` runs there, and that this PC is on the office network.</source>
        <translation>No se puede llegar a la bandeja de la oficina en {url}. Comprueba que el PC de la oficina esté encendido, que `inbox serve` se esté ejecutando allí y que este PC esté en la red de la oficina.</translation>
    </message>
    <message>
        <source>The office&apos;s server refused the sign-in: {reason}</source>
        <translation>El servidor de la oficina rechazó el inicio de sesión: {reason}</translation>
    </message>
    <message>
        <source>Sign in to the shared inbox</source>
        <translation>Iniciar sesión en la bandeja compartida</translation>
    </message>
    <message>
        <source>Invite</source>
        <translation>Invitación</translation>
    </message>
    <message>
        <source>inbox://… as printed by `inbox user invite NAME`</source>
        <translation>inbox://… tal como lo imprime `inbox user invite NAME`</translation>
    </message>
    <message>
        <source>Backend URL</source>
        <translation>URL del servidor</translation>
    </message>
    <message>
        <source>API token</source>
        <translation>Token de la API</translation>
    </message>
    <message>
        <source>Your user name</source>
        <translation>Tu nombre de usuario</translation>
    </message>
    <message>
        <source>as given to `inbox user add` (for Assign to me)</source>
        <translation>tal como se dio a `inbox user add` (para Asignármela)</translation>
    </message>
    <message>
        <source>On another desk, paste the invite from the office PC. On the office PC itself, the token printed by `inbox user add NAME` is enough. It is remembered on this computer.</source>
        <translation>En otro puesto, pega la invitación del PC de la oficina. En el propio PC de la oficina basta con el token que imprime `inbox user add NAME`. Se recuerda en este equipo.</translation>
    </message>
    <message>
        <source>Inbox servers on this network</source>
        <translation>Servidores de la bandeja en esta red</translation>
    </message>
    <message>
        <source>Inbox servers on this network (only an invite makes one trusted):</source>
        <translation>Servidores de la bandeja en esta red (solo una invitación hace que uno sea de confianza):</translation>
    </message>
    <message>
        <source>Sign-in problem</source>
        <translation>Problema al iniciar sesión</translation>
    </message>
    <message>
        <source>{name} — {address} (certificate {fingerprint}…)</source>
        <translation>{name} — {address} (certificado {fingerprint}…)</translation>
    </message>
    <message>
        <source>A server on the office network is trusted through its invite: paste the invite.</source>
        <translation>Un servidor de la red de la oficina es de confianza mediante su invitación: pega la invitación.</translation>
    </message>
    <message>
        <source>Checking the office&apos;s server…</source>
        <translation>Comprobando el servidor de la oficina…</translation>
    </message>
</context>
<context>
    <name>SupervisorModel</name>
    <message>
        <source>customer</source>
        <translation>cliente</translation>
    </message>
    <message>
        <source>{mark} {state}  ·  {who}  ·  {purpose}  ·  {age} old</source>
        <translation>{mark} {state}  ·  {who}  ·  {purpose}  ·  hace {age}</translation>
    </message>
</context>
<context>
    <name>SupervisorView</name>
    <message>
        <source>If the first attempt did reach {customer}, they will get this message twice.</source>
        <translation>Si el primer intento llegó a {customer}, recibirá este mensaje dos veces.</translation>
    </message>
    <message>
        <source>{customer} has not received it: it was held, not sent.</source>
        <translation>{customer} no lo ha recibido: se retuvo, no se envió.</translation>
    </message>
    <message>
        <source>Send this message to {customer} again?</source>
        <translation>¿Enviar este mensaje a {customer} otra vez?</translation>
    </message>
    <message>
        <source>Resend?</source>
        <translation>¿Reenviar?</translation>
    </message>
    <message>
        <source>Mark as sent?</source>
        <translation>¿Marcar como enviado?</translation>
    </message>
    <message>
        <source>Record the message to {customer} as sent, without sending anything?

Choose this only if you know {customer} received it; otherwise they will never get it.</source>
        <translation>¿Registrar el mensaje a {customer} como enviado, sin enviar nada?

Elige esto solo si sabes que {customer} lo recibió; si no, nunca lo recibirá.</translation>
    </message>
    <message>
        <source>Cancel the message?</source>
        <translation>¿Cancelar el mensaje?</translation>
    </message>
    <message>
        <source>Cancel the message to {customer}? It will not be sent again.

If an earlier attempt reached {customer}, they keep that one copy.</source>
        <translation>¿Cancelar el mensaje a {customer}? No se volverá a enviar.

Si un intento anterior llegó a {customer}, conserva esa única copia.</translation>
    </message>
    <message>
        <source>Sends needing a decision</source>
        <translation>Envíos que necesitan una decisión</translation>
    </message>
    <message>
        <source>Select a send on the left.</source>
        <translation>Selecciona un envío a la izquierda.</translation>
    </message>
    <message>
        <source>Customer</source>
        <translation>Cliente</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>Mensaje</translation>
    </message>
    <message>
        <source>Purpose</source>
        <translation>Propósito</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Estado</translation>
    </message>
    <message>
        <source>Attempts</source>
        <translation>Intentos</translation>
    </message>
    <message>
        <source>Age</source>
        <translation>Antigüedad</translation>
    </message>
    <message>
        <source>Last error</source>
        <translation>Último error</translation>
    </message>
    <message>
        <source>Key</source>
        <translation>Clave</translation>
    </message>
    <message>
        <source>Evidence</source>
        <translation>Pruebas</translation>
    </message>
    <message>
        <source>Mark sent</source>
        <translation>Marcar enviado</translation>
    </message>
    <message>
        <source>Resend</source>
        <translation>Reenviar</translation>
    </message>
    <message>
        <source>Cancel send</source>
        <translation>Cancelar envío</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>Enviar</translation>
    </message>
    <message>
        <source>the customer</source>
        <translation>el cliente</translation>
    </message>
    <message>
        <source>No status from WhatsApp for this send yet.</source>
        <translation>Aún no hay estado de WhatsApp para este envío.</translation>
    </message>
    <message>
        <source>Recorded: {key} is now {state}.</source>
        <translation>Registrado: {key} ahora está {state}.</translation>
    </message>
</context>
<context>
    <name>ThreadModel</name>
    <message>
        <source>We sent, {time}, {state}: {text}</source>
        <translation>Enviamos, {time}, {state}: {text}</translation>
    </message>
    <message>
        <source>Note by {author}, {time}: {text}</source>
        <translation>Nota de {author}, {time}: {text}</translation>
    </message>
    <message>
        <source>Customer, {time}, chose: {choice}</source>
        <translation>Cliente, {time}, eligió: {choice}</translation>
    </message>
    <message>
        <source>Customer, {time}, not linked to a message: {text}</source>
        <translation>Cliente, {time}, sin vincular a un mensaje: {text}</translation>
    </message>
    <message>
        <source>Customer, {time}, not answered: {text}</source>
        <translation>Cliente, {time}, sin responder: {text}</translation>
    </message>
    <message>
        <source>Customer, {time}: {text}</source>
        <translation>Cliente, {time}: {text}</translation>
    </message>
    <message>
        <source>internal note, never sent to the customer</source>
        <translation>nota interna, nunca se envía al cliente</translation>
    </message>
</context>
<context>
    <name>WorkQueueModel</name>
    <message>
        <source>{time}   {sender}: {text}</source>
        <translation>{time}   {sender}: {text}</translation>
    </message>
    <message>
        <source>customer</source>
        <translation>cliente</translation>
    </message>
    <message>
        <source>(no text)</source>
        <translation>(sin texto)</translation>
    </message>
    <message numerus="yes">
        <source>{text}   (%n messages it may answer)</source>
        <translation>
            <numerusform>{text}   (%Ln mensaje al que puede responder)</numerusform>
            <numerusform>{text}   (%Ln mensajes a los que puede responder)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>WorkQueueView</name>
    <message>
        <source>Unattributed replies</source>
        <translation>Respuestas sin asignar</translation>
    </message>
    <message>
        <source>Select a reply on the left.</source>
        <translation>Selecciona una respuesta a la izquierda.</translation>
    </message>
    <message>
        <source>Reply</source>
        <translation>Responder</translation>
    </message>
    <message>
        <source>These replies quote none of our messages and came after messages nobody answered yet, so nobody knows which one they answer. Link each to the message it answers (the newest is chosen), or mark it as a new topic.</source>
        <translation>Estas respuestas no citan ninguno de nuestros mensajes y llegaron después de mensajes que nadie respondió aún, así que nadie sabe a cuál responden. Vincula cada una al mensaje al que responde (se elige el más reciente) o márcala como tema nuevo.</translation>
    </message>
    <message>
        <source>From {sender} at {time}</source>
        <translation>De {sender} a las {time}</translation>
    </message>
    <message>
        <source>customer</source>
        <translation>cliente</translation>
    </message>
</context>
<context>
    <name>delegates</name>
    <message>
        <source>Link to message…</source>
        <translation>Vincular a un mensaje…</translation>
    </message>
    <message>
        <source>Photo</source>
        <translation>Foto</translation>
    </message>
    <message>
        <source>Sticker</source>
        <translation>Sticker</translation>
    </message>
    <message>
        <source>Voice note</source>
        <translation>Nota de voz</translation>
    </message>
    <message>
        <source>Video</source>
        <translation>Vídeo</translation>
    </message>
    <message>
        <source>Document</source>
        <translation>Documento</translation>
    </message>
    <message>
        <source>click to view</source>
        <translation>clic para ver</translation>
    </message>
    <message>
        <source>click to play</source>
        <translation>clic para reproducir</translation>
    </message>
    <message>
        <source>click to save</source>
        <translation>clic para guardar</translation>
    </message>
    <message>
        <source>File</source>
        <translation>Archivo</translation>
    </message>
    <message>
        <source>playing {position} / {length}</source>
        <translation>reproduciendo {position} / {length}</translation>
    </message>
    <message>
        <source>playing {position}</source>
        <translation>reproduciendo {position}</translation>
    </message>
    <message>
        <source>click to stop</source>
        <translation>clic para detener</translation>
    </message>
    <message>
        <source>{kind}  ·  downloading…</source>
        <translation>{kind}  ·  descargando…</translation>
    </message>
    <message>
        <source>unknown reason</source>
        <translation>motivo desconocido</translation>
    </message>
    <message>
        <source>could not download: {reason}  ·  Retry</source>
        <translation>no se pudo descargar: {reason}  ·  Reintentar</translation>
    </message>
    <message>
        <source>Note by {author}  ·  {time}</source>
        <translation>Nota de {author}  ·  {time}</translation>
    </message>
    <message>
        <source>Failed.</source>
        <translation>Falló.</translation>
    </message>
    <message>
        <source>⚠ WhatsApp did not confirm this send: a supervisor decides whether to resend.</source>
        <translation>⚠ WhatsApp no confirmó este envío: un supervisor decide si se reenvía.</translation>
    </message>
    <message>
        <source>Held: the customer&apos;s 24-hour window is closed; a template is needed.</source>
        <translation>Retenido: la ventana de 24 horas del cliente está cerrada; hace falta una plantilla.</translation>
    </message>
    <message>
        <source>Chose: {choice}</source>
        <translation>Eligió: {choice}</translation>
    </message>
    <message>
        <source>Reacted {emoji}</source>
        <translation>Reaccionó {emoji}</translation>
    </message>
    <message>
        <source>Not linked to a message</source>
        <translation>Sin vincular a un mensaje</translation>
    </message>
    <message>
        <source>Loading picture…</source>
        <translation>Cargando imagen…</translation>
    </message>
</context>
<context>
    <name>errors</name>
    <message>
        <source>WhatsApp did not accept our access token. Someone needs to renew it.</source>
        <translation>WhatsApp no aceptó nuestro token de acceso. Alguien tiene que renovarlo.</translation>
    </message>
    <message>
        <source>WhatsApp access token expired. Someone needs to renew it.</source>
        <translation>El token de acceso de WhatsApp caducó. Alguien tiene que renovarlo.</translation>
    </message>
    <message>
        <source>Too many requests to WhatsApp; it will be tried again later.</source>
        <translation>Demasiadas solicitudes a WhatsApp; se volverá a intentar más tarde.</translation>
    </message>
    <message>
        <source>Sending too fast for WhatsApp; it will be tried again shortly.</source>
        <translation>Enviando demasiado rápido para WhatsApp; se volverá a intentar enseguida.</translation>
    </message>
    <message>
        <source>Not sent: this customer is part of a WhatsApp experiment.</source>
        <translation>No enviado: este cliente forma parte de un experimento de WhatsApp.</translation>
    </message>
    <message>
        <source>WhatsApp had an unexpected problem sending it.</source>
        <translation>WhatsApp tuvo un problema inesperado al enviarlo.</translation>
    </message>
    <message>
        <source>WhatsApp was briefly unavailable.</source>
        <translation>WhatsApp no estuvo disponible por un momento.</translation>
    </message>
    <message>
        <source>The customer&apos;s number is our own number.</source>
        <translation>El número del cliente es nuestro propio número.</translation>
    </message>
    <message>
        <source>The customer cannot receive it: not on WhatsApp, an old app, or they blocked us.</source>
        <translation>El cliente no puede recibirlo: no está en WhatsApp, tiene una app antigua o nos bloqueó.</translation>
    </message>
    <message>
        <source>This number is not on the test allow-list of our WhatsApp account.</source>
        <translation>Este número no está en la lista de prueba permitida de nuestra cuenta de WhatsApp.</translation>
    </message>
    <message>
        <source>Our WhatsApp account is locked.</source>
        <translation>Nuestra cuenta de WhatsApp está bloqueada.</translation>
    </message>
    <message>
        <source>A billing problem with our WhatsApp account.</source>
        <translation>Un problema de facturación con nuestra cuenta de WhatsApp.</translation>
    </message>
    <message>
        <source>More than 24 hours since the customer last wrote: only a template can be sent.</source>
        <translation>Han pasado más de 24 horas desde que el cliente escribió: solo se puede enviar una plantilla.</translation>
    </message>
    <message>
        <source>WhatsApp is limiting us because earlier messages were reported as spam.</source>
        <translation>WhatsApp nos limita porque mensajes anteriores se denunciaron como spam.</translation>
    </message>
    <message>
        <source>WhatsApp held it back to limit marketing to this customer; try again tomorrow.</source>
        <translation>WhatsApp lo retuvo para limitar el marketing a este cliente; inténtalo mañana.</translation>
    </message>
    <message>
        <source>The customer turned off marketing messages from us.</source>
        <translation>El cliente desactivó nuestros mensajes de marketing.</translation>
    </message>
    <message>
        <source>WhatsApp does not support this kind of message.</source>
        <translation>WhatsApp no admite este tipo de mensaje.</translation>
    </message>
    <message>
        <source>The attached media could not be uploaded.</source>
        <translation>No se pudo subir el archivo adjunto.</translation>
    </message>
    <message>
        <source>Too many messages to this customer in a short time; it will be tried again.</source>
        <translation>Demasiados mensajes a este cliente en poco tiempo; se volverá a intentar.</translation>
    </message>
    <message>
        <source>The template got the wrong number of values.</source>
        <translation>La plantilla recibió un número incorrecto de valores.</translation>
    </message>
    <message>
        <source>The template does not exist in this language or is not approved.</source>
        <translation>La plantilla no existe en este idioma o no está aprobada.</translation>
    </message>
    <message>
        <source>The template is paused for low quality.</source>
        <translation>La plantilla está en pausa por baja calidad.</translation>
    </message>
    <message>
        <source>The template is disabled.</source>
        <translation>La plantilla está desactivada.</translation>
    </message>
    <message>
        <source>Our phone number is not registered with WhatsApp.</source>
        <translation>Nuestro número de teléfono no está registrado en WhatsApp.</translation>
    </message>
    <message>
        <source>Our WhatsApp account is temporarily blocked for a policy violation.</source>
        <translation>Nuestra cuenta de WhatsApp está bloqueada temporalmente por infringir una política.</translation>
    </message>
    <message>
        <source>No answer from WhatsApp after the message went out: it may or may not have reached the customer.</source>
        <translation>Sin respuesta de WhatsApp después de enviar el mensaje: puede que haya llegado al cliente o no.</translation>
    </message>
    <message>
        <source>The sender stopped (a crash or a restart) while this message was going out: it may or may not have reached the customer.</source>
        <translation>El remitente se detuvo (un fallo o un reinicio) mientras salía este mensaje: puede que haya llegado al cliente o no.</translation>
    </message>
    <message>
        <source>The message never reached WhatsApp (no connection); it is tried again.</source>
        <translation>El mensaje nunca llegó a WhatsApp (sin conexión); se vuelve a intentar.</translation>
    </message>
    <message>
        <source>WhatsApp accepted it but gave no message id to follow it by.</source>
        <translation>WhatsApp lo aceptó pero no dio un ID de mensaje para seguirlo.</translation>
    </message>
    <message>
        <source>The stored message cannot be sent as it is.</source>
        <translation>El mensaje guardado no se puede enviar tal como está.</translation>
    </message>
    <message>
        <source>The data was restored from a backup taken while this message was waiting or going out: it may or may not have reached the customer.</source>
        <translation>Los datos se restauraron desde una copia tomada mientras este mensaje esperaba o salía: puede que haya llegado al cliente o no.</translation>
    </message>
    <message>
        <source>Cancelled before it went: the customer opted out of marketing.</source>
        <translation>Cancelado antes de salir: el cliente se excluyó del marketing.</translation>
    </message>
    <message>
        <source>WhatsApp refused the message.</source>
        <translation>WhatsApp rechazó el mensaje.</translation>
    </message>
    <message>
        <source>{meaning} (code {code})</source>
        <translation>{meaning} (código {code})</translation>
    </message>
</context>
<context>
    <name>placement</name>
    <message>
        <source>answers our message</source>
        <translation>responde a nuestro mensaje</translation>
    </message>
    <message>
        <source>part of the conversation</source>
        <translation>parte de la conversación</translation>
    </message>
    <message>
        <source>not linked to a message</source>
        <translation>sin vincular a un mensaje</translation>
    </message>
    <message>
        <source>linked to a message by an agent</source>
        <translation>vinculado a un mensaje por un agente</translation>
    </message>
    <message>
        <source>a new topic</source>
        <translation>un tema nuevo</translation>
    </message>
</context>
<context>
    <name>presence</name>
    <message>
        <source>{names} are typing…</source>
        <translation>{names} están escribiendo…</translation>
    </message>
    <message>
        <source>{name} is typing…</source>
        <translation>{name} está escribiendo…</translation>
    </message>
    <message>
        <source>{names} are viewing</source>
        <translation>{names} están mirando</translation>
    </message>
    <message>
        <source>{name} is viewing</source>
        <translation>{name} está mirando</translation>
    </message>
    <message>
        <source>{names} and {last}</source>
        <translation>{names} y {last}</translation>
    </message>
</context>
<context>
    <name>presentation</name>
    <message>
        <source>closed</source>
        <translation>cerrada</translation>
    </message>
    <message>
        <source>{duration} left</source>
        <translation>quedan {duration}</translation>
    </message>
    <message>
        <source>{size} MB</source>
        <translation>{size} MB</translation>
    </message>
    <message>
        <source>{size} KB</source>
        <translation>{size} KB</translation>
    </message>
    <message>
        <source>{hours} h {minutes} m</source>
        <translation>{hours} h {minutes} min</translation>
    </message>
    <message>
        <source>{minutes} m</source>
        <translation>{minutes} min</translation>
    </message>
    <message>
        <source>a customer</source>
        <translation>un cliente</translation>
    </message>
    <message>
        <source>d MMM</source>
        <comment>date format</comment>
        <translation>d MMM</translation>
    </message>
    <message>
        <source>{count} s</source>
        <translation>{count} s</translation>
    </message>
    <message>
        <source>{count} m</source>
        <translation>{count} min</translation>
    </message>
    <message>
        <source>{count} h</source>
        <translation>{count} h</translation>
    </message>
    <message>
        <source>{count} d</source>
        <translation>{count} d</translation>
    </message>
    <message>
        <source>⊘ Opted out of marketing</source>
        <translation>⊘ Excluido del marketing</translation>
    </message>
</context>
<context>
    <name>quality</name>
    <message>
        <source>High (green)</source>
        <translation>Alta (verde)</translation>
    </message>
    <message>
        <source>Medium (yellow)</source>
        <translation>Media (amarillo)</translation>
    </message>
    <message>
        <source>Low (red)</source>
        <translation>Baja (rojo)</translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation>Desconocida</translation>
    </message>
    <message>
        <source>not read yet</source>
        <translation>aún sin leer</translation>
    </message>
    <message>
        <source>no daily limit</source>
        <translation>sin límite diario</translation>
    </message>
    <message>
        <source>{count} customers a day</source>
        <translation>{count} clientes al día</translation>
    </message>
    <message>
        <source>{amount} (set by hand; Meta says {tier})</source>
        <translation>{amount} (fijado a mano; Meta dice {tier})</translation>
    </message>
    <message>
        <source>nothing yet</source>
        <translation>nada aún</translation>
    </message>
    <message>
        <source>{amount} (Meta has not said yet)</source>
        <translation>{amount} (Meta aún no lo ha dicho)</translation>
    </message>
    <message>
        <source>⚠ Quality rating dropped to {rating}: Meta may lower the messaging limit. Check recent marketing and templates; customers who block or report the number lower it.</source>
        <translation>⚠ La calificación de calidad bajó a {rating}: Meta puede reducir el límite de mensajes. Revisa el marketing y las plantillas recientes; los clientes que bloquean o denuncian el número la bajan.</translation>
    </message>
</context>
<context>
    <name>snooze</name>
    <message>
        <source>1 hour</source>
        <translation>1 hora</translation>
    </message>
    <message>
        <source>3 hours</source>
        <translation>3 horas</translation>
    </message>
    <message>
        <source>Tomorrow 9:00</source>
        <translation>Mañana a las 9:00</translation>
    </message>
    <message>
        <source>Next Monday 9:00</source>
        <translation>El próximo lunes a las 9:00</translation>
    </message>
</context>
<context>
    <name>state</name>
    <message>
        <source>queued</source>
        <translation>en cola</translation>
    </message>
    <message>
        <source>sending</source>
        <translation>enviando</translation>
    </message>
    <message>
        <source>accepted</source>
        <translation>aceptado</translation>
    </message>
    <message>
        <source>sent</source>
        <translation>enviado</translation>
    </message>
    <message>
        <source>delivered</source>
        <translation>entregado</translation>
    </message>
    <message>
        <source>read</source>
        <translation>leído</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>fallido</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>desconocido</translation>
    </message>
    <message>
        <source>held</source>
        <translation>retenido</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>cancelado</translation>
    </message>
</context>
<context>
    <name>status</name>
    <message>
        <source>queued</source>
        <translation>en cola</translation>
    </message>
    <message>
        <source>sending</source>
        <translation>enviando</translation>
    </message>
    <message>
        <source>accepted by WhatsApp</source>
        <translation>aceptado por WhatsApp</translation>
    </message>
    <message>
        <source>sent</source>
        <translation>enviado</translation>
    </message>
    <message>
        <source>delivered</source>
        <translation>entregado</translation>
    </message>
    <message>
        <source>read</source>
        <translation>leído</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>fallido</translation>
    </message>
    <message>
        <source>unknown: it may or may not have reached the customer</source>
        <translation>desconocido: puede que haya llegado al cliente o no</translation>
    </message>
    <message>
        <source>held: the customer&apos;s window is closed</source>
        <translation>retenido: la ventana del cliente está cerrada</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>cancelado</translation>
    </message>
    <message>
        <source>Snoozed until {time}</source>
        <translation>Pospuesta hasta {time}</translation>
    </message>
    <message>
        <source>Snoozed</source>
        <translation>Pospuesta</translation>
    </message>
    <message>
        <source>Pending</source>
        <translation>Pendiente</translation>
    </message>
    <message>
        <source>Resolved</source>
        <translation>Resuelta</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>Abierta</translation>
    </message>
</context>
<context>
    <name>supervisor</name>
    <message>
        <source>Unknown outcome: the send may or may not have reached the customer.</source>
        <translation>Resultado desconocido: puede que el envío haya llegado al cliente o no.</translation>
    </message>
    <message>
        <source>Stuck in sending: the worker sending it stopped answering.</source>
        <translation>Atascado enviando: el proceso que lo enviaba dejó de responder.</translation>
    </message>
    <message>
        <source>Held: the customer&apos;s 24-hour window closed before it could be sent.</source>
        <translation>Retenido: la ventana de 24 horas del cliente se cerró antes de poder enviarlo.</translation>
    </message>
    <message>
        <source>WhatsApp reported &apos;{status}&apos; at {time} for {wamid}</source>
        <translation>WhatsApp informó «{status}» a las {time} para {wamid}</translation>
    </message>
</context>
<context>
    <name>templates</name>
    <message>
        <source>paused by Meta (low quality)</source>
        <translation>pausada por Meta (baja calidad)</translation>
    </message>
    <message>
        <source>rejected by Meta</source>
        <translation>rechazada por Meta</translation>
    </message>
    <message>
        <source>waiting for Meta&apos;s review</source>
        <translation>esperando la revisión de Meta</translation>
    </message>
    <message>
        <source>waiting for Meta&apos;s review of an appeal</source>
        <translation>esperando la revisión de Meta de una apelación</translation>
    </message>
    <message>
        <source>disabled by Meta</source>
        <translation>desactivada por Meta</translation>
    </message>
    <message>
        <source>being deleted at Meta</source>
        <translation>en proceso de borrado en Meta</translation>
    </message>
    <message>
        <source>{status} at Meta</source>
        <translation>{status} en Meta</translation>
    </message>
    <message>
        <source>marketing, and this customer opted out of marketing</source>
        <translation>de marketing, y este cliente se excluyó del marketing</translation>
    </message>
</context>
</TS>
